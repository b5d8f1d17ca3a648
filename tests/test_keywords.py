"""The keyword side of recall: which words pull candidates in a big store, and the score.

In a store of PRUNE_FROM entries or more, only the query's rarer words pick BM25
candidates (none held by over COMMON_SHARE of the entries, MAX_RANKED entries ranked in
all, and of those a word held by over PULL_SHARE pulls none but adds to the scores of
those the rarer ones pulled); the common ones still count in the score's denominator.
The thresholds are lowered here so that a store of 60 entries is "big": the rule, not
the sizes, is what is checked (the sizes are measured in scripts/bench and
scripts/eval_recall).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from enyal_daemon.index import keywords
from enyal_daemon.service.memory import memories
from enyal_daemon.service.upkeep import transfer
from enyal_protocol import wire as p


@pytest.fixture
def store(memory: Any) -> dict[str, str]:
    lines = []
    for i in range(50):  # "service" is in nearly every entry, "disk" in a third: both common
        sink = "disk" if i < 20 else "a queue"
        lines.append({"content": f"The service number {i} writes its logs to {sink}."})
    for i in range(8):  # "retries" in 8 of 60 (13%): rare enough
        lines.append({"content": f"Webhook retries back off exponentially, attempt cap {i}."})
    lines.append({"content": "The zeppelin service deploys on Fridays."})  # "zeppelin": 1
    lines.append({"content": "Another zeppelin note about retries and the service."})
    encoded = [msgspec.json.encode(line).decode() for line in lines]
    result = transfer.import_lines(memory, p.ImportParams(lines=encoded))
    assert result.stored == len(lines)
    return {line["content"]: r.id for line, r in zip(lines, result.lines, strict=True)}


Search = Callable[[str], dict[int, float]]


@pytest.fixture
def search(memory: Any, store: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Search:
    """Keyword search of the store as if it were big (PRUNE_FROM lowered to 20), every
    word searched pulling entries in (PULL_SHARE: its own test)."""
    monkeypatch.setattr(keywords, "PRUNE_FROM", 20)
    monkeypatch.setattr(keywords, "PULL_SHARE", 1.0)
    conn, counts = memory.reader(), keywords.DocCounts()
    return lambda text: dict(keywords.search(conn, counts, text, 100))


def holding(memory: Any, store: dict[str, str], word: str) -> set[int]:
    """The rids of the entries whose text holds this word."""
    conn = memory.reader()
    ids = [entry_id for text, entry_id in store.items() if word in text]
    return {
        int(conn.execute("SELECT rid FROM context_entries WHERE id = ?", (i,)).fetchone()[0])
        for i in ids
    }


def test_common_words_pull_no_candidates_in_a_big_store(
    memory: Any, store: dict[str, str], search: Search, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "service" is held by 52 of 60 entries: alone, it finds nothing (meaning will).
    assert search("service") == {}
    # With a rare word, only that word's entries are candidates...
    got = search("zeppelin service")
    assert set(got) == holding(memory, store, "zeppelin")
    # ...and a common word still counts in the ideal score: the same match is a smaller
    # share of a query that also asks for "disk" (held by 20 of 60, an IDF well above 0).
    alone, with_disk = search("zeppelin"), search("zeppelin disk")
    assert set(alone) == set(with_disk) == set(got)
    assert all(0 < with_disk[rid] < alone[rid] <= 1 for rid in got)
    # In a small store every word pulls candidates.
    monkeypatch.setattr(keywords, "PRUNE_FROM", 10_000)
    assert len(search("service")) == 52


def test_the_ranking_cap_keeps_the_rarest_words(
    memory: Any, store: dict[str, str], search: Search, monkeypatch: pytest.MonkeyPatch
) -> None:
    zeppelins = holding(memory, store, "zeppelin")
    assert set(search("retries zeppelin")) == holding(memory, store, "retries") | zeppelins
    # A cap of 5 ranked entries: "zeppelin" (2) fits, "retries" (9) would pass it.
    monkeypatch.setattr(keywords, "MAX_RANKED", 5)
    assert set(search("retries zeppelin")) == zeppelins


def test_a_word_past_the_pull_share_scores_the_entries_pulled_without_pulling_more(
    memory: Any, store: dict[str, str], search: Search, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word held by more than PULL_SHARE of the entries adds to the score of the entries
    the rarer words pulled and pulls none of its own: the entries and scores are those of
    every word OR-ed, less the entries only the commoner words hold."""
    zeppelins = holding(memory, store, "zeppelin")
    everything = search("retries zeppelin")
    assert set(everything) == holding(memory, store, "retries") | zeppelins
    # "zeppelin" is held by 2 of 60 entries, "retries" by 9 (15%): only the first pulls.
    monkeypatch.setattr(keywords, "PULL_SHARE", 0.1)
    pulled = search("retries zeppelin")
    assert set(pulled) == zeppelins
    assert pulled == pytest.approx({rid: everything[rid] for rid in zeppelins}, rel=1e-9)
    both = holding(memory, store, "retries") & zeppelins  # the note that holds both words
    assert len(both) == 1 and max(pulled, key=pulled.__getitem__) in both
    # The rarest word pulls even when it is held by more than PULL_SHARE.
    monkeypatch.setattr(keywords, "PULL_SHARE", 0.01)
    assert search("retries zeppelin") == pulled


def test_word_counts_outlive_their_ttl_while_nothing_is_committed(
    memory: Any, store: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's prompts come minutes apart: their words are not counted again unless a
    text may have changed meanwhile (the recalls' own bookkeeping changes none). The TTL
    is set to 0 to stand for that time passing; the statements the reader runs are traced
    (apsw's exec_trace) to see what is counted."""
    monkeypatch.setattr(keywords, "DOC_COUNT_TTL", 0.0)
    conn, counts = memory.reader(), memory.doc_counts
    counted: list[str] = []

    def trace(cursor: Any, sql: str, bindings: Any) -> bool:
        if sql.startswith("SELECT count(*)"):
            counted.append(bindings[0])
        return True

    conn.exec_trace = trace
    first = keywords.search(conn, counts, "zeppelin retries", 10)
    assert sorted(counted) == ['"retries"', '"zeppelin"']
    counted.clear()
    assert keywords.search(conn, counts, "zeppelin retries", 10) == first
    assert counted == []  # the store has not changed: the counts hold
    memory.bookkeeping.touch(store.values())  # a recall's bookkeeping is written...
    assert memory.flush_bookkeeping()
    keywords.search(conn, counts, "zeppelin retries", 10)
    assert counted == []  # ...and changes no text: they still hold
    memories.remember(memory, p.RememberParams(content="A third zeppelin lands.", scope="global"))
    again = dict(keywords.search(conn, counts, "zeppelin", 10))
    assert counted == ['"zeppelin"']  # a commit since: counted anew, and it finds three
    assert len(again) == 3 and counts.get(conn, "zeppelin") == 3


def test_a_remembered_search_splits_its_query_once(
    memory: Any, store: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon's memo of keyword results (keywords.Remembered) splits the query into
    words once a search, a miss included (it did it twice: once for its key, once in the
    search). `terms` is wrapped only to count its calls; it still does the splitting."""
    calls: list[str] = []
    real = keywords.terms

    def counted(text: str) -> list[str]:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(keywords, "terms", counted)
    conn, counts = memory.reader(), keywords.DocCounts()
    memo = keywords.Remembered(lambda: memory.store_version.value)
    missed = memo.search(conn, counts, "zeppelin retries", 10)
    assert len(calls) == 1, "a miss"
    assert memo.search(conn, counts, "zeppelin retries", 10) == missed
    assert len(calls) == 2, "a hit"
    assert missed == keywords.search(conn, counts, "zeppelin retries", 10)  # the same answer


def test_a_deleted_entry_leaves_the_keyword_scores_as_if_it_never_was(
    memory: Any, store: dict[str, str], home: Any, embedder: Any
) -> None:
    """The store's size in the words' IDF is the index's own row count, not the largest
    rid (off by every deletion): a store that lost an entry scores a query as its export
    imported into a fresh store does (the torture's round trip found the two ranking two
    hits apart)."""
    from enyal_daemon.service.core.engine import Engine

    gone = store["The service number 3 writes its logs to disk."]
    memories.forget(memory, p.ForgetParams(id=gone, hard=True))
    kept = [{"content": text} for text, entry_id in store.items() if entry_id != gone]
    twin = Engine(home / "twin.db", embedder)
    try:
        encoded = [msgspec.json.encode(line).decode() for line in kept]
        assert transfer.import_lines(twin, p.ImportParams(lines=encoded)).stored == len(kept)
        for query in ("zeppelin disk", "retries service", "logs queue"):
            here = sorted(
                s for _, s in keywords.search(memory.reader(), keywords.DocCounts(), query, 100)
            )
            there = sorted(
                s for _, s in keywords.search(twin.reader(), keywords.DocCounts(), query, 100)
            )
            assert here == pytest.approx(there, rel=1e-9), query
    finally:
        twin.close()

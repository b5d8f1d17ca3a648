"""What the model said of a text, remembered (embedder/memo.py): token counts and query
vectors, with the real model. Each is what the model gives, asked once, and bounded."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from enyal_daemon.embedder.memo import QueryVectors, TokenCounts


class Recording:
    """The model's own count_tokens, with each batch it was asked noted."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.asked: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[int]:
        self.asked.append(list(texts))
        counts: list[int] = self.embedder.count_tokens(texts)
        return counts


TEXTS = [
    "Lint with ruff, line length 100.",
    "The billing tests need SQLITE_TMPDIR set to a writable folder.",
    "Deploys happen on weekdays before 15:00 only, never on Fridays.",
]


def test_token_counts_are_the_tokenizers_and_asked_once(embedder: Any) -> None:
    model = Recording(embedder)
    counts = TokenCounts(model)
    truth = embedder.count_tokens(TEXTS)
    assert counts.count([TEXTS[0], TEXTS[1], TEXTS[0]]) == [truth[0], truth[1], truth[0]]
    assert model.asked == [[TEXTS[0], TEXTS[1]]]  # one batch, each text once
    assert counts.count(TEXTS) == truth
    assert model.asked[1:] == [[TEXTS[2]]]  # only the one not known yet
    assert counts.count(list(reversed(TEXTS))) == list(reversed(truth))
    assert len(model.asked) == 2
    assert counts.count([]) == []


def test_token_counts_are_bounded(embedder: Any) -> None:
    model = Recording(embedder)
    counts = TokenCounts(model, max_chars=100, text_max=80)
    texts = [f"memory number {i} says something short" for i in range(10)]  # 36-37 chars
    assert counts.count(texts) == embedder.count_tokens(texts)
    assert len(counts) == 2  # the last two: at most 100 characters kept
    assert counts.count(texts[-2:]) == embedder.count_tokens(texts[-2:])
    assert len(model.asked) == 1
    long = "word " * 20  # 100 characters: over text_max, counted every time
    assert counts.count([long]) == counts.count([long]) == embedder.count_tokens([long])
    assert model.asked[-2:] == [[long], [long]]


def test_a_query_asked_again_is_not_embedded_again(memory: Any) -> None:
    first = memory.embed_query_soon("how do we lint here?").result()
    again = memory.embed_query_soon("how do we lint here?")
    assert again.done()  # no inference: the vector was known
    vec = again.result()
    assert np.array_equal(vec, first)
    assert np.allclose(vec, memory.embedder.embed_many(["how do we lint here?"]), atol=1e-6)
    with pytest.raises(ValueError):
        vec[0, 0] = 1.0  # shared by every caller: nobody may change it
    other = memory.embed_query("where are invoices rounded?")
    assert not np.allclose(other, vec)


def test_query_vectors_are_bounded(memory: Any) -> None:
    vectors = QueryVectors(size=2)
    for q in ("one", "two", "three"):
        vectors.keep(q, memory._batcher.submit(q)).result()
    assert len(vectors) == 2
    assert vectors.get("one") is None
    two = vectors.get("two")
    assert two is not None and two.done()


def test_keyword_results_hold_until_a_write(memory: Any) -> None:
    """Remembered keyword results (index/keywords.py) are the search's own while the
    store's version stays put, and a write of any memory moves it; the access counts a
    recall leaves (bookkeeping) do not."""
    from enyal_daemon.index import keywords
    from enyal_daemon.service import verbs
    from enyal_protocol import wire as p

    run = verbs.bind(memory)

    def remember(text: str) -> str:
        return str(run["remember"](p.RememberParams(content=text, scope="global")).id)

    def found(query: str) -> list[tuple[int, float]]:
        conn = memory.reader()
        got = memory.keyword_results.search(conn, memory.doc_counts, query, 10)
        assert got == keywords.search(conn, memory.doc_counts, query, 10)  # the search's own
        return got

    first = remember("The zyxquux service restarts nightly.")
    assert len(found("zyxquux restarts")) == 1
    at = memory.store_version.value
    run["recall"](p.RecallParams(query="zyxquux restarts", scope="all"))
    assert memory.flush_bookkeeping()  # the recall's access counts, written
    assert memory.store_version.value == at  # not counted: keyword results do not read them
    assert len(found("zyxquux restarts")) == 1
    remember("zyxquux logs go to /var/log/zyxquux.")
    assert memory.store_version.value > at
    assert len(found("zyxquux restarts")) == 2
    run["forget"](p.ForgetParams(id=first, hard=True))
    assert len(found("zyxquux restarts")) == 1


def test_a_word_no_entry_holds_runs_no_search_again(memory: Any) -> None:
    """The keyword searches are remembered by what they read, not by the query's words:
    an error asked again with a word no entry holds changed (a test's number, a timing)
    runs no BM25 search, and its scores are still its own (scaled by all its words)."""
    from enyal_daemon.index import keywords
    from enyal_daemon.service import verbs
    from enyal_protocol import wire as p

    run = verbs.bind(memory)
    for text in ("The zyxquux service restarts nightly.", "zyxquux logs rotate daily."):
        run["remember"](p.RememberParams(content=text, scope="global"))
    conn = memory.reader()
    first = memory.keyword_results.search(conn, memory.doc_counts, "zyxquux restarts 0.31s", 10)
    statements: list[str] = []
    conn.exec_trace = lambda _cur, sql, _args: statements.append(sql) or True
    try:
        again = memory.keyword_results.search(conn, memory.doc_counts, "zyxquux restarts 0.47s", 10)
    finally:
        conn.exec_trace = None
    assert not [s for s in statements if "bm25(" in s], statements
    assert again == keywords.search(conn, memory.doc_counts, "zyxquux restarts 0.47s", 10)
    assert [rid for rid, _ in again] == [rid for rid, _ in first]
    alone = keywords.search(conn, memory.doc_counts, "zyxquux restarts", 10)
    assert again[0][1] < alone[0][1]  # the absent word still counts in the scale


def test_brief_rows_hold_until_memories_or_their_use_change(memory: Any, project: Any) -> None:
    """The brief's remembered rows (engine.brief_rows) are read again once a memory or
    its use changed, and not for the brief's own record of when it ran."""
    from enyal_daemon.service import verbs
    from enyal_protocol import wire as p

    run = verbs.bind(memory)
    cwd = str(project)

    def remember(text: str, importance: int = 3) -> str:
        params = p.RememberParams(
            content=text, content_type="convention", importance=importance, cwd=cwd
        )
        return str(run["remember"](params).id)

    def knowledge() -> list[str]:
        md = run["brief"](p.BriefParams(cwd=cwd, budget_tokens=400)).markdown
        part = md.split("## Conventions and decisions\n", 1)[1].split("\n\n", 1)[0]
        return [line.rsplit("`", 2)[-2] for line in part.splitlines()]

    first = remember("Lint with ruff before every commit.")
    second = remember("Name test files test_<feature>.py.")
    assert knowledge() == [first[:8], second[:8]]  # a tie: the older first
    used = memory.store_version.used
    assert knowledge() == [first[:8], second[:8]]
    assert memory.store_version.used == used  # the brief's own record moved nothing
    memory.bookkeeping.touch([second, second])
    assert memory.flush_bookkeeping()
    assert memory.store_version.used > used
    assert knowledge() == [second[:8], first[:8]]  # used more: first now
    top = remember("Never push to main directly.", importance=5)
    assert knowledge() == [top[:8], second[:8], first[:8]]


def test_the_briefs_stale_listing_is_kept_and_exact_at_every_moment(
    home: Any, embedder: Any, project: Any
) -> None:
    """The brief's "stale" items (brief.py _stale) are read once for a stretch of time and
    kept while no memory changes (engine.brief_listed), and each brief still lists exactly
    what a fresh read for its own moment would: a memory turns stale at its own minute,
    an update makes it fresh again at once."""
    from datetime import UTC, datetime, timedelta

    from enyal_daemon.service import verbs
    from enyal_daemon.service.core.engine import Engine
    from enyal_daemon.service.rules.clock import SetClock, to_iso
    from enyal_daemon.service.session import brief
    from enyal_daemon.store.filters import EntryFilter
    from enyal_protocol import wire as p

    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    clock = SetClock(start)
    engine = Engine(home / "enyal.db", embedder, clock=clock)
    try:
        run = verbs.bind(engine)
        cwd = str(project)
        ids = []
        for text in ("Lint with ruff.", "Tests run with pytest -q.", "Deploy on weekdays."):
            params = p.RememberParams(content=text, content_type="convention", cwd=cwd)
            ids.append(str(run["remember"](params).id))
            clock.advance(timedelta(minutes=10))  # stamped 9:00, 9:10, 9:20

        def stale_items() -> list[str]:
            md = run["brief"](p.BriefParams(cwd=cwd, budget_tokens=1500, record=False)).markdown
            part = md.split("## To review\n", 1)[1].split("\n\n", 1)[0] if "To review" in md else ""
            return [line.rsplit("`", 2)[-2] for line in part.splitlines() if "stale" in line]

        def fresh_read() -> list[str]:
            chain = brief.scopes.project_of(cwd)
            cutoff = to_iso(clock.now() - timedelta(days=brief.REVIEW_STALE_DAYS))
            f = EntryFilter(
                scopes=(("project", chain.key), ("workspace", chain.workspace), ("global", None)),
                checked_before=cutoff,
                exclude_types=("log", "task"),
            )
            return [r.id[:8] for r in brief._pool(engine, f, "updated", False, brief.REVIEW_MAX)]

        later = start + timedelta(days=brief.REVIEW_STALE_DAYS)
        seen = []
        for minutes in (-5, 5, 15, 25, 55, 65):  # across 9:00-10:00 and into the next hour
            clock.set(later + timedelta(minutes=minutes))
            got = stale_items()
            assert got == fresh_read()
            seen.append(len(got))
        assert seen == [0, 1, 2, 3, 3, 3]
        stretches = [k for k in engine.brief_listed._known if k[0] == "stale"]
        # one read per hour the six briefs fell in (8:55; 9:05 to 9:55; 10:05), not per brief
        assert len(stretches) == 3
        run["update"](p.UpdateParams(id=ids[0], content="Lint with ruff, line length 100."))
        assert stale_items() == fresh_read() == [ids[1][:8], ids[2][:8]]
    finally:
        engine.close()


def test_a_few_texts_are_counted_as_a_batch_counts_them(embedder: Any, tok: Any) -> None:
    """Up to SERIAL_COUNT texts are counted one by one on the calling thread (no hand-off
    to the tokenizer's pool); more in one encode_batch_fast. Either way each count is the
    text's whole tokens without [CLS]/[SEP], as the tokenizer loaded afresh says."""
    from enyal_daemon.embedder import onnx

    texts = [*TEXTS, "数据库连接池的配置", "", "x " * 400] * 3
    truth = [len(tok.encode(t, add_special_tokens=False).ids) for t in texts]
    assert len(texts) > onnx.SERIAL_COUNT
    assert embedder.count_tokens(texts) == truth
    assert embedder.count_tokens(texts[: onnx.SERIAL_COUNT]) == truth[: onnx.SERIAL_COUNT]
    assert embedder.count_tokens(texts[:1]) == truth[:1]

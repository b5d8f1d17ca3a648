"""Long memories as passages (embedder/passages.py, index/passages.py): a fact buried in a
long text is found by its passage, and every write path keeps the passages in step
with the text, in the database and in the index. Real model, real SQLite, real daemon."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import old_store, raw_db
from enyal_daemon.embedder.passages import (
    _BREAK,
    MAX_PASSAGES,
    PASSAGE_TOKENS,
    _pack,
    counted,
    split,
    split_many,
    whole_of,
)
from enyal_daemon.index.entry_index import EntryIndex
from enyal_daemon.index.passages import CHANCE_PER_LOG_VECTOR, SLOTS
from enyal_daemon.service.memory import memories
from enyal_daemon.service.memory import recall as recall_verb
from enyal_daemon.service.upkeep import transfer
from enyal_protocol import wire as p

# A long turn about one thing, with the fact asked about said in passing.
FILLER = [
    "I was thinking of getting a tree stand for deer hunting this season.",
    "Can you tell me what to consider when buying one?",
    "I would like something light enough to carry a mile into the woods.",
    "Safety harnesses matter to me, and so does a quiet seat that does not creak.",
    "My budget is around two hundred dollars, maybe a little more for a good one.",
    "I hunt mostly on public land, so it has to come down at the end of each day.",
    "Ladder stands look sturdy but heavy; hang-on stands seem easier to move.",
    "What do experienced hunters recommend for a beginner on a tight budget?",
]
BURIED = "Oh, and by the way, I caught 7 largemouth bass at Lake Michigan with Alex on 7/10."
LONG = " ".join([*FILLER[:4], BURIED, *FILLER[4:]])
QUESTION = "How many largemouth bass did I catch with Alex at Lake Michigan?"


def passage_rows(db: Path, entry_id: str) -> int:
    conn = raw_db(db)
    row = conn.execute(
        "SELECT count(*) FROM context_passages p JOIN context_entries e ON e.rid = p.rid "
        "WHERE e.id = ?",
        (entry_id,),
    ).fetchone()
    conn.close()
    return int(row[0])


def test_a_short_text_has_no_passages_and_a_long_one_is_packed_in_order(embedder: Any) -> None:
    assert split("Use ruff for linting. Never flake8.", embedder.count_tokens) == []
    assert split("one sentence only, however long " * 40, embedder.count_tokens) == []
    parts = split(LONG, embedder.count_tokens)
    assert len(parts) >= 2
    assert " ".join(parts) == LONG  # nothing lost, nothing reordered
    sizes = embedder.count_tokens(parts)
    assert all(size <= PASSAGE_TOKENS for size in sizes), sizes
    # Packed: no two neighbours would have fit in one passage.
    assert all(a + b > PASSAGE_TOKENS for a, b in itertools.pairwise(sizes))


def test_a_very_long_text_stops_at_max_passages(embedder: Any) -> None:
    text = "\n".join(f"Line {i} says the build step number {i} runs quickly." for i in range(2000))
    parts = split(text, embedder.count_tokens)
    assert len(parts) == MAX_PASSAGES
    assert parts[0].startswith("Line 0 ")
    assert MAX_PASSAGES <= SLOTS  # every passage has a key under its entry's rid


def test_entry_index_keeps_passages_in_step_with_their_entry() -> None:
    rng = np.random.default_rng(7)

    def unit(n: int) -> Any:
        v = rng.standard_normal((n, 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    index = EntryIndex(384)
    wholes, parts = unit(3), unit(4)
    index.add(1, wholes[0], parts[:3], group=1, kind=2)
    index.add(2, wholes[1], None, group=1, kind=2)
    index.add(3, wholes[2], parts[3:], group=2, kind=3)
    assert len(index) == 3 and len(index.passages) == 4
    q = parts[1]  # entry 1's second passage, exactly
    # Found by its passage, less what the best of its 4 vectors gains by chance.
    by_passage = 1.0 - CHANCE_PER_LOG_VECTOR * np.log(4)
    assert index.search(q, 1, passages=True)[0] == (1, pytest.approx(by_passage, abs=0.01))
    assert index.search(q, 3)[0][1] < 0.5  # whole texts only: nothing is that near
    assert index.similarity(q, [1, 2], passages=True)[1] == pytest.approx(by_passage, abs=0.01)
    assert index.similarity(q, [1])[1] < 0.5
    # Filters reach the passages: another group, another kind, or rids not allowed.
    assert 1 not in dict(index.search(q, 3, groups=[2], passages=True))
    assert 1 not in dict(index.search(q, 3, kinds=[3], passages=True))
    assert 1 not in dict(index.search(q, 3, only=[2, 3], passages=True))
    index.set_kind(1, 3)
    assert dict(index.search(q, 3, kinds=[3], passages=True))[1] > by_passage - 0.01
    index.set_active(1, False)
    assert 1 not in dict(index.search(q, 3, passages=True))
    assert dict(index.search(q, 3, active_only=False, passages=True))[1] > by_passage - 0.01
    index.set_active(1, True)
    index.add(1, wholes[0], None)  # a new text without passages drops the old ones
    assert len(index.passages) == 1 and index.similarity(q, [1], passages=True)[1] < 0.5
    index.remove(3)
    assert len(index) == 2 and len(index.passages) == 0


def test_passage_counts_and_best_passages_follow_every_change() -> None:
    """An entry's passage count (what its similarity is lowered by: a recall reads it three
    times, so it is kept as passages change, issue 30) and its best passage's cosine are
    what its passages held then say: after a load (a rid given twice keeps its last
    vectors), a replacement by more or by none, a removal, an entry made inactive, and
    for entries without passages or not held at all."""
    rng = np.random.default_rng(11)

    def unit(n: int) -> Any:
        v = rng.standard_normal((n, 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    vecs = unit(12)
    index = EntryIndex(384)
    index.load(
        [(rid, vecs[0].tobytes(), False, 0, 0) for rid in (1, 2, 5)],
        [
            (rid, ord_, vecs[i].tobytes(), False, 0, 0)
            for rid, ord_, i in ((1, 0, 1), (1, 1, 2), (5, 0, 3), (5, 0, 4))
        ],
    )
    asked = np.array([1, 2, 5, 9_999, 0], dtype=np.int64)

    def counts() -> list[int]:
        return index.passages.counts(asked).tolist()  # type: ignore[no-any-return]

    def best(rid: int, of: Any) -> float:
        return float(max(of @ vecs[11]))

    assert counts() == [2, 0, 1, 0, 0]
    sims = index.passages.similarity(vecs[11], [5, 1, 2])
    assert list(sims) == [5, 1]  # in the order asked; entry 2 has none
    assert sims[1] == pytest.approx(best(1, vecs[1:3]), abs=0.01)
    assert sims[5] == pytest.approx(best(5, vecs[4:5]), abs=0.01)
    index.add(5, vecs[0], vecs[5:8])
    assert counts() == [2, 0, 3, 0, 0]
    assert index.passages.similarity(vecs[11], [5])[5] == pytest.approx(
        best(5, vecs[5:8]), abs=0.01
    )
    index.add(1, vecs[0], None)
    assert counts() == [0, 0, 3, 0, 0]
    index.add(9_999, vecs[0], vecs[8:10])  # past every rid counted so far
    assert counts() == [0, 0, 3, 2, 0]
    index.set_active(5, False)  # its passages leave searches, not the count
    assert counts() == [0, 0, 3, 2, 0]
    index.remove(9_999)
    index.remove(5)
    assert counts() == [0, 0, 0, 0, 0] and len(index.passages) == 0
    assert index.chance(asked).tolist() == [0.0] * len(asked)


def test_an_entry_with_passages_is_as_near_as_its_best_passage_not_its_whole_vector() -> None:
    """Its whole vector is made of its passages (whole_of): it finds the entry, but scoring
    by it as one more vector lifted long texts above their best passage (issue 30)."""
    rng = np.random.default_rng(11)
    v = rng.standard_normal((5, 384)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    parts, short = v[:3], v[3]
    whole = whole_of(parts, [40, 40, 40])
    index = EntryIndex(384)
    index.add(1, whole, parts)
    index.add(2, short, None)
    best = float((parts @ whole).max()) - CHANCE_PER_LOG_VECTOR * np.log(4)
    assert best < 0.8  # the query is the whole vector: a whole-text score would be 1 - chance
    assert index.similarity(whole, [1, 2], passages=True)[1] == pytest.approx(best, abs=0.01)
    found = dict(index.search(whole, 2, passages=True))
    assert found[1] == pytest.approx(best, abs=0.01)
    # Found by its whole vector with its passages outside the passages' top: the same.
    assert dict(index.search(whole, 1, passages=True))[1] == pytest.approx(best, abs=0.01)
    # An entry without passages keeps its whole vector's cosine.
    assert index.similarity(short, [2], passages=True)[2] == pytest.approx(1.0, abs=0.01)


def test_recall_finds_a_fact_said_in_passing(memory: Any, home: Path) -> None:
    long_id = memories.remember(memory, p.RememberParams(content=LONG, scope="global")).id
    for text in [
        "Bass fishing is best at dawn in summer, near weed beds and drop-offs.",
        "Lake Michigan's harbors hold salmon and trout in the spring.",
        "Alex prefers fly fishing for trout on small rivers.",
    ]:
        memories.remember(memory, p.RememberParams(content=text, scope="global"))
    assert passage_rows(home / "enyal.db", long_id) >= 2
    hits = recall_verb.recall(memory, p.RecallParams(query=QUESTION, limit=4)).results
    assert hits[0].id == long_id, [(h.content[:40], h.semantic) for h in hits]
    whole = memory.index.similarity(memory.embed(QUESTION), [memory.require(long_id).rid])
    assert hits[0].semantic > next(iter(whole.values())) + 0.1  # the passage lifted it

    # A new text replaces the passages; the fact is gone with the text it was in.
    memories.update(memory, p.UpdateParams(id=long_id, content=" ".join(FILLER)))
    hits = recall_verb.recall(memory, p.RecallParams(query=QUESTION, limit=4)).results
    assert hits[0].id != long_id
    assert passage_rows(home / "enyal.db", long_id) >= 2

    # Restoring the old version brings its passages back.
    memories.restore(memory, p.RestoreParams(id=long_id, version=1))
    hits = recall_verb.recall(memory, p.RecallParams(query=QUESTION, limit=4)).results
    assert hits[0].id == long_id

    # Forgotten, its passages leave recall with it; deleted for good, the database too.
    memories.forget(memory, p.ForgetParams(id=long_id))
    hits = recall_verb.recall(memory, p.RecallParams(query=QUESTION, limit=4)).results
    assert long_id not in [h.id for h in hits]
    memories.forget(memory, p.ForgetParams(id=long_id, hard=True))
    assert passage_rows(home / "enyal.db", long_id) == 0
    assert len(memory.index.passages) == 0


# Sentences too long for two to share a passage: each of them, and the one said in
# passing between them, is a passage of its own.
ROUTINE = [
    f"On day {day} of the trip we walked along the harbour, bought bread and cheese at the "
    f"market, read for an hour in the park by the old fountain, and went back to the hotel "
    f"before the evening rain started to fall over the roofs of the town."
    for day in range(1, 13)
]
SAID = "Biscuit is the name of the golden retriever my sister adopted last spring."
ASKED = "What did my sibling call her new puppy?"  # no word of it in either text


def test_a_long_memory_does_not_outrank_a_short_one_saying_the_same(memory: Any) -> None:
    """The same sentence said alone and said in passing in a long text (one passage of
    many): their cosines are the same, but the long text's is the best of 14 vectors
    (its whole text's and 13 passages'), and it counts for less. The long text is the
    newer (recency would favour it), and no word of the question is in either (the
    keyword side, which prefers the short one by BM25's length normalisation, is not
    what decides)."""
    long_text = " ".join([*ROUTINE[:6], SAID, *ROUTINE[6:]])
    lines = [
        {"id": "short", "content": SAID, "created_at": "2026-01-01T00:00:00Z"},
        {"id": "long", "content": long_text, "created_at": "2026-01-02T00:00:00Z"},
    ]
    result = transfer.import_lines(memory, p.ImportParams(lines=[json.dumps(x) for x in lines]))
    assert result.stored == 2
    parts = split(long_text, memory.embedder.count_tokens)
    assert SAID in parts and len(parts) == 13, parts  # its own passage: the same vector
    hits = recall_verb.recall(
        memory, p.RecallParams(query=ASKED, limit=2, asked_at="2026-01-03T00:00:00Z")
    ).results
    assert [h.keyword for h in hits] == [0.0, 0.0]
    assert [h.id for h in hits] == ["short", "long"], [(h.id, h.semantic) for h in hits]
    short, long = hits
    assert short.semantic - long.semantic == pytest.approx(
        CHANCE_PER_LOG_VECTOR * np.log(14), abs=0.01
    )
    # Whether it fits the query at all is read from its best cosine as such: a floor
    # between the lowered and the best one keeps it.
    floored = recall_verb.recall(
        memory,
        p.RecallParams(
            query=ASKED,
            limit=2,
            asked_at="2026-01-03T00:00:00Z",
            min_relevance=round(long.semantic + 0.05, 2),
        ),
    ).results
    assert [h.id for h in floored] == ["short", "long"]


def test_imported_long_memories_get_passages(memory: Any) -> None:
    line = json.dumps({"id": "turn-1", "content": LONG})
    result = transfer.import_lines(memory, p.ImportParams(lines=[line]))
    assert result.stored == 1
    hits = recall_verb.recall(memory, p.RecallParams(query=QUESTION, limit=1)).results
    assert hits[0].id == "turn-1"
    assert len(memory.index.passages) >= 2


def test_a_long_texts_whole_vector_is_made_of_its_passages_by_every_write(
    memory: Any, embedder: Any
) -> None:
    """Issue 30: the model is not run on a text with passages whole; its whole vector is
    its passages' token-weighted mean, the same whether remembered or imported."""
    (parts,) = counted([LONG], embedder.count_tokens)
    assert parts.tokens == embedder.count_tokens(parts.texts)  # sentences' counts add up
    made = whole_of(np.stack([embedder.embed(x) for x in parts.texts]), parts.tokens)
    assert abs(float(np.linalg.norm(made)) - 1) < 1e-5
    run = embedder.embed(LONG)
    assert 0.8 < float(made @ run) < 0.99999  # near the text run whole, not the same
    given: list[str] = []
    real = memory.embedder.embed_many

    def seen(texts: list[str], ids: Any = None) -> Any:
        given.extend(texts)
        return real(texts, ids)

    memory.embedder.embed_many = seen
    remembered = memories.remember(memory, p.RememberParams(content=LONG, scope="global"))
    line = json.dumps({"content": LONG + " Imported too."})
    transfer.import_lines(memory, p.ImportParams(lines=[line]))
    assert LONG not in given and LONG + " Imported too." not in given
    stored = memory.stored_embedding(memory.require(remembered.id).rid)
    assert stored is not None and float(stored.whole @ made) > 0.99999


def test_a_restarted_daemon_loads_passages_from_the_database(tmp_path: Path) -> None:
    from daemon_support import running

    with running(tmp_path / "home") as d:
        stored = d.call("remember", {"content": LONG, "scope": "global"})["id"]
        d.call(
            "remember",
            {"content": "Bass fishing is best at dawn near weed beds.", "scope": "global"},
        )
        d.call(
            "remember",
            {"content": "Alex prefers fly fishing for trout on small rivers.", "scope": "global"},
        )
        before = d.call("recall", {"query": QUESTION, "limit": 3})["results"]
    with running(tmp_path / "home") as d:
        after = d.call("recall", {"query": QUESTION, "limit": 3})["results"]
        assert "Traceback" not in d.log.text()
    assert before[0]["id"] == after[0]["id"] == stored
    assert after[0]["semantic"] == pytest.approx(before[0]["semantic"], abs=1e-6)


def test_memories_stored_before_passages_get_them_in_the_background(
    home: Path, embedder: Any, tmp_path: Path
) -> None:
    """A store of schema 10 (no passages) with a long memory in it: m011 marks it, the
    backfill gives it passages step by step, and the daemon does so by itself."""
    from daemon_support import running
    from enyal_daemon.service.core.engine import Engine
    from enyal_daemon.service.upkeep import backfill

    db = home / "enyal.db"
    conn = old_store(db, 10)
    texts = {"old-long": LONG, "old-short": "Bass fishing is best at dawn near weed beds."}
    with conn:
        for entry_id, text in texts.items():
            conn.execute(
                "INSERT INTO context_entries (id, content, content_hash, content_type, "
                "scope_level, created_at, updated_at) VALUES (?, ?, ?, 'fact', 'global', "
                "'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
                (entry_id, text, entry_id),
            )
            conn.execute(
                "INSERT INTO context_vectors(rowid, embedding) VALUES (last_insert_rowid(), ?)",
                (embedder.embed(text).tobytes(),),
            )
    conn.close()

    m = Engine(db, embedder)
    try:
        assert backfill.pending(m) and len(m.index.passages) == 0
        old_rid = m.require("old-long").rid
        qvec = m.embed(QUESTION)
        before = m.index.similarity(qvec, [old_rid], passages=True)[old_rid]
        steps = 0
        while backfill.step(m):
            steps += 1
        assert steps >= 1 and not backfill.pending(m)
        assert passage_rows(db, "old-long") >= 2 and passage_rows(db, "old-short") == 0
        after = m.index.similarity(qvec, [old_rid], passages=True)[old_rid]
        assert after > before + 0.1
        # A memory written after the migration has its passages already; nothing to do.
        memories.remember(
            m, p.RememberParams(content=LONG + " Also rainbow trout.", scope="global")
        )
        assert not backfill.step(m)
    finally:
        m.close()

    # The daemon does it by itself: a second old store, opened by a real daemon.
    other = tmp_path / "other"
    conn = old_store(other / "enyal.db", 10)
    with conn:
        conn.execute(
            "INSERT INTO context_entries (id, content, content_hash, content_type, "
            "scope_level, created_at, updated_at) VALUES ('old-long', ?, 'h', 'fact', "
            "'global', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
            (LONG,),
        )
        conn.execute(
            "INSERT INTO context_vectors(rowid, embedding) VALUES (last_insert_rowid(), ?)",
            (embedder.embed(LONG).tobytes(),),
        )
    conn.close()
    with running(other) as d:
        deadline = time.monotonic() + 60
        while passage_rows(other / "enyal.db", "old-long") == 0:
            assert time.monotonic() < deadline, d.log.text()
            time.sleep(0.2)
        hit = d.call("recall", {"query": QUESTION, "limit": 1, "min_confidence": 0})["results"][0]
        assert hit["id"] == "old-long" and hit["semantic"] > before + 0.1
        assert "Traceback" not in d.log.text()


def test_a_batch_is_split_as_each_text_alone_with_one_tokenizer_call(embedder: Any) -> None:
    """split_many (a replica's pulled batch) makes exactly the passages split makes for
    each text counted on its own, in one tokenizer call, and skips counting a text too
    short in characters to exceed one passage (no token is shorter than a character)."""
    texts = [LONG, "Use ruff. Never flake8.", "", "x. " * 40, BURIED + " " + LONG, "One."]
    calls: list[list[str]] = []

    def counting(batch: list[str]) -> list[int]:
        calls.append(batch)
        return list(embedder.count_tokens(batch))

    def alone(text: str) -> list[str]:  # every sentence counted, no shortcut
        sentences = [s for s in (x.strip() for x in _BREAK.split(text)) if s]
        if len(sentences) < 2:
            return []
        return _pack(sentences, embedder.count_tokens(sentences)).texts

    assert split_many(texts, counting) == [alone(t) for t in texts]
    assert len(calls) == 1
    assert "Use ruff." not in calls[0]  # 20 characters: one passage whatever its tokens
    assert [bool(ps) for ps in split_many(texts, embedder.count_tokens)] == [
        True,
        False,
        False,
        True,
        True,
        False,
    ]

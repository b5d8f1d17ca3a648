"""An import is embedded a chunk at a time while the chunk before is judged and written,
every text once (issue 30): what it stores must be what each line alone would make.
Real model, real SQLite, the engine in this process (as test_passages.py imports)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from conftest import raw_db
from enyal_daemon.embedder import onnx
from enyal_daemon.embedder.passages import counted, embed_all, split, whole_of
from enyal_daemon.service.upkeep import transfer
from enyal_protocol import wire as p

# Long texts (passages) and short ones, over more than one chunk, with a repeat.
SENTENCES = [
    "The deploy script lives in scripts/deploy.sh and needs AWS_PROFILE set first.",
    "We chose SQLite in WAL mode so that readers never block the single writer.",
    "Tabs vs spaces: this project indents Python with four spaces and Go with tabs.",
    "Line length is 100 and imports are sorted by ruff's isort rules, first party last.",
    "The staging cluster is rebuilt every night, so nothing there lasts past morning.",
    "Secrets come from the vault at start-up and are never written to the disk.",
    "A failing migration rolls the whole release back, not only the step that failed.",
    "Benchmarks run on a quiet machine, or their figures say how loaded it was.",
]
LONG = [" ".join(SENTENCES[i:] + SENTENCES[:i]) for i in range(4)]
SHORT = [f"Service number {i} deploys to staging from its own branch." for i in range(56)]
CONTENTS = [*LONG, *SHORT, SHORT[3]]


class Counting:
    """The real embedder, keeping the texts it was asked to embed (the test must see what
    was embedded, and how often; every vector still comes from the model)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.texts: list[str] = []
        self.ids: list[list[int] | None] = []  # each text's token ids, when it came with them

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def embed_many(self, texts: list[str], ids: Any = None) -> Any:
        self.texts.extend(texts)
        self.ids.extend(ids if ids is not None else [None] * len(texts))
        return self.real.embed_many(texts, ids)


def _lines(contents: list[str]) -> list[str]:
    return [json.dumps({"content": c}) for c in contents]


def _alone(embedder: Any, text: str) -> np.ndarray:
    """The whole vector `text` alone is stored with: run whole when it has no passages,
    else made from its passages, each embedded alone (unpadded)."""
    (parts,) = counted([text], embedder.count_tokens)
    if not parts.texts:
        return np.asarray(embedder.embed(text))
    return whole_of(np.stack([embedder.embed(x) for x in parts.texts]), parts.tokens)


def _stored(memory: Any, home: Any) -> dict[str, tuple[np.ndarray, list[np.ndarray]]]:
    """content -> (its vector, its passages' vectors in order), read from the database."""
    conn = raw_db(home / "enyal.db")
    out = {}
    for rid, content in conn.execute("SELECT rid, content FROM context_entries"):
        (blob,) = conn.execute(
            "SELECT embedding FROM context_vectors WHERE rowid = ?", (rid,)
        ).fetchone()
        parts = conn.execute(
            "SELECT embedding FROM context_passages WHERE rid = ? ORDER BY ord", (rid,)
        ).fetchall()
        out[content] = (
            np.frombuffer(blob, dtype=np.float32),
            [np.frombuffer(b, dtype=np.float32) for (b,) in parts],
        )
    conn.close()
    return out


def test_an_import_stores_the_vectors_and_passages_each_text_alone_has(
    memory: Any, home: Any, embedder: Any
) -> None:
    assert len(CONTENTS) > transfer.CHUNK  # more than one chunk, so the pipeline runs
    result = transfer.import_lines(memory, p.ImportParams(lines=_lines(CONTENTS)))
    assert (result.stored, result.existing, result.failed) == (len(CONTENTS) - 1, 1, 0)
    assert [x.line for x in result.lines] == list(range(1, len(CONTENTS) + 1))
    # The repeat (the last line) is the memory its first line made.
    assert result.lines[-1].id == result.lines[len(LONG) + 3].id
    stored = _stored(memory, home)
    assert set(stored) == set(CONTENTS)
    for text, (whole, parts) in stored.items():
        # Each text embedded alone, unpadded: batching changes nothing beyond float noise.
        assert float(np.dot(whole, _alone(embedder, text))) > 0.99999, text
        alone = split(text, embedder.count_tokens)
        assert len(parts) == len(alone)
        for vec, passage in zip(parts, alone, strict=True):
            assert float(np.dot(vec, embedder.embed(passage))) > 0.99999, passage
    assert sum(len(ps) for _, ps in stored.values()) >= 2 * len(LONG)  # the long ones have
    # and searches see every row and passage once the chunks have committed
    assert len(memory.index.whole) == len(stored)
    assert len(memory.index.passages) == sum(len(ps) for _, ps in stored.values())


def test_a_text_is_embedded_once_and_lines_held_already_not_at_all(memory: Any) -> None:
    counting = Counting(memory.embedder)
    memory.embedder = counting
    transfer.import_lines(memory, p.ImportParams(lines=_lines(CONTENTS)))
    # A long text's passages, not the text itself: its whole vector is made of theirs.
    wanted = [*SHORT, *(x for t in LONG for x in split(t, counting.count_tokens))]
    assert sorted(counting.texts) == sorted(set(wanted))  # the repeat once
    counting.texts.clear()
    exported = transfer.export_page(memory, p.ExportParams(after=0, limit=500)).entries
    again = [json.dumps({"content": c, "tags": []}) for c in CONTENTS]
    again += [json.dumps({"id": e.id, "content": e.content}) for e in exported]
    result = transfer.import_lines(memory, p.ImportParams(lines=again))
    assert result.existing == len(again) and result.stored == 0
    assert counting.texts == []  # nothing the store held was embedded again


def test_a_passage_is_tokenized_once(memory: Any, embedder: Any) -> None:
    # Its sentences are tokenized to pack them; its ids are theirs, handed to the model
    # with its text rather than made again (issue 30), and they are the ids its text has.
    counting = Counting(memory.embedder)
    memory.embedder = counting
    transfer.import_lines(memory, p.ImportParams(lines=_lines(CONTENTS)))
    passages = {x for t in LONG for x in split(t, embedder.count_tokens)}
    given = dict(zip(counting.texts, counting.ids, strict=True))
    assert passages <= set(given)
    for text in passages:
        assert given[text] == embedder.token_ids([text])[0], text
    assert all(given[t] is None for t in SHORT)  # a text run whole is tokenized there
    # The same vectors, bit for bit, as the texts tokenized again.
    texts = sorted(given)
    made = embedder.embed_many(texts, [given[t] for t in texts])
    assert np.array_equal(made, embedder.embed_many(texts))


def test_memories_embedded_outside_an_import_are_tokenized_once_too(
    memory: Any, embedder: Any
) -> None:
    # Engine.embed_memories (a file's sections, a scan's fix, a hub's pull of texts not
    # embedded by our model, a line deleted during its import) hands the model each
    # passage's ids, its sentences' as counted to cut them, as the import does.
    counting = Counting(memory.embedder)
    memory.embedder = counting
    made = memory.embed_memories([*LONG, *SHORT[:3]])
    given = dict(zip(counting.texts, counting.ids, strict=True))
    passages = {x for t in LONG for x in split(t, embedder.count_tokens)}
    assert passages <= set(given)
    for text in passages:
        assert given[text] == embedder.token_ids([text])[0], text
    again = embed_all([*LONG, *SHORT[:3]], embedder.embed_many, embedder.count_tokens)
    for one, other in zip(made, again, strict=True):  # the same vectors, bit for bit
        assert np.array_equal(one.whole, other.whole)
        assert np.array_equal(one.passages, other.passages)


def test_the_next_chunk_is_embedding_before_this_one_is_waited_for(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each chunk is split between the two embedding threads; were the next chunk handed
    # over only once this one is done, the thread done first with its half would wait for
    # the other's and for the next chunk's counting (docs/ARCHITECTURE.md). The first is
    # handed over before the rest of the request is read, and is a small one (the cores
    # wait while it is read), as is the last chunk, judged and written once every
    # embedding is done.
    events: list[tuple[str, int]] = []
    sizes: list[int] = []
    real = memory.embed_memories_soon
    read = transfer._entry

    def entry(line: str, *args: Any) -> Any:
        events.append(("read", len([e for e, _ in events if e == "read"])))
        return read(line, *args)

    monkeypatch.setattr(transfer, "_entry", entry)

    def soon(texts: list[str]) -> Any:
        k = len(sizes)
        sizes.append(len(texts))
        events.append(("handed", k))
        wait = real(texts)

        def waited() -> Any:
            events.append(("waited", k))
            return wait()

        return waited

    memory.embed_memories_soon = soon
    contents = [f"{c} (copy {i})" for i in range(3) for c in CONTENTS]
    result = transfer.import_lines(memory, p.ImportParams(lines=_lines(contents)))
    assert result.stored == len(set(contents))
    assert events.index(("handed", 0)) < events.index(("read", len(contents) - 1))
    events = [e for e in events if e[0] != "read"]
    chunks = len(sizes)
    assert chunks >= 3
    assert sorted(events) == sorted([(e, k) for k in range(chunks) for e in ("handed", "waited")])
    for k in range(chunks - 1):
        assert events.index(("handed", k + 1)) < events.index(("waited", k)), events
    assert max(sizes) <= transfer.CHUNK
    assert 0 < sizes[0] <= transfer.FIRST_CHUNK and 0 < sizes[-1] <= transfer.LAST_CHUNK, sizes
    assert max(transfer.FIRST_CHUNK, transfer.LAST_CHUNK) < min(sizes[1:-1]), sizes


def test_a_line_held_when_checked_but_gone_when_written_is_embedded_then(
    memory: Any, home: Any, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A line the store holds is not embedded; if it is deleted before its chunk is written
    # (a forget racing the import), it must still be stored whole. The window cannot be
    # hit on purpose, so the check is made to answer "held" for every line.
    monkeypatch.setattr(transfer, "_held", lambda conn, entry: True)
    result = transfer.import_lines(memory, p.ImportParams(lines=_lines(LONG[:2] + SHORT[:3])))
    assert (result.stored, result.existing, result.failed) == (5, 0, 0)
    for text, (whole, parts) in _stored(memory, home).items():
        assert float(np.dot(whole, _alone(embedder, text))) > 0.99999
        assert len(parts) == len(split(text, embedder.count_tokens))


def test_a_run_of_texts_is_padded_by_at_most_max_pad_of_its_width() -> None:
    rng = np.random.default_rng(3)
    lengths = [int(x) for x in rng.integers(5, 257, 300)]
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    runs = onnx._batches(order, lengths)
    assert [i for run in runs for i in run] == order  # every text once, in order
    for run in runs:
        widths = [lengths[i] for i in run]
        assert len(run) <= onnx.BATCH_SIZE
        assert len(run) == 1 or len(run) * max(widths) <= onnx.BATCH_TOKENS
        assert len(run) == 1 or len(run) * max(widths) ** 2 <= onnx.ATTENTION_CELLS
        assert min(widths) >= max(widths) * (1 - onnx.MAX_PAD)


def test_texts_near_the_window_run_alone_and_short_ones_still_share_a_run() -> None:
    # A run's transient heap grows with rows x width squared (issue 30: the import's
    # peak is two such runs at once): two texts of a full window run one after the other,
    # while short memories fill a run up to BATCH_TOKENS as before.
    full = onnx.MAX_TOKENS
    assert onnx._batches([0, 1], [full, full]) == [[0], [1]]
    assert onnx._batches([0, 1], [full - 80, full - 80]) == [[0, 1]]
    short = [20] * onnx.BATCH_SIZE
    runs = onnx._batches(list(range(len(short))), short)
    assert len(runs[0]) == onnx.BATCH_TOKENS // 20


def test_an_import_gives_the_writers_page_cache_back(memory: Any) -> None:
    # The writer's page cache fills as an import writes (16 MB of the daemon's heap after
    # importing SciFact abstracts at 100k, issue 30): freed once the import is written,
    # not kept until the next burst of writes. SQLite's own count for the connection.
    import apsw

    def cached() -> int:
        # Read on the writer's turn: the writer's thread may be using its connection in a
        # lull (extending the WAL), and apsw refuses a connection used by two threads.
        def read(tx: Any) -> int:
            tx.counted = tx.used = False
            return int(tx.conn.status(apsw.SQLITE_DBSTATUS_CACHE_USED)[0])

        return int(memory.writer.run(read, durable=False))

    written = []
    real = memory.release_write_cache

    def release() -> None:
        written.append(cached())  # what the import's writes left cached
        real()

    memory.release_write_cache = release
    transfer.import_lines(memory, p.ImportParams(lines=_lines(CONTENTS)))
    assert written and written[0] > 64 * 1024
    assert cached() < written[0] / 10


def test_a_cache_that_cannot_be_freed_leaves_the_import_answered(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Freeing the writer's cache opens a transaction of its own; if none can be opened
    # then (another process holds the write lock), the lines already written stand.
    import apsw

    def busy() -> None:
        raise apsw.BusyError("database is locked")

    monkeypatch.setattr(memory.writer, "release_cache", busy)
    result = transfer.import_lines(memory, p.ImportParams(lines=_lines(SHORT[:3])))
    assert (result.stored, result.failed) == (3, 0)

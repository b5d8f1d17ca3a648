"""Applying what the hub sent: the convergence rule (docs/ARCHITECTURE.md, "The replica").

`prepare` runs outside the writer: it decodes each change, refuses a malformed one,
puts the text through what any input goes through (the secret rules, the injection
check) and finds its vectors (carried, when made by our model; else embedded here).
`apply` is one writer job for a slice of a pulled batch: each change once (by change
id), the memories new here together, any other change in a savepoint of its own so one
that fails is reported and the rest apply, and the cursor moved past the slice in the
same transaction, so a crash can neither skip nor repeat. `apply_pulled` does both, a
slice at a time.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import apsw
import msgspec
import numpy as np

from enyal_protocol import wire as p
from enyal_protocol.kinds import HUB_AUTHOR, HUB_DEVICE

from ...embedder import passages
from ...embedder.onnx import SERIAL_COUNT
from ...embedder.passages import Embedding, Vector
from ...errors import EnyalError
from ...hub.change import Change, Pulled, Rejected
from ...hygiene.injection import judge_memory
from ...store import entries, graph, versions
from ...store import hub as rows
from ...store.rows import EntryRow, inserted_row
from ...store.writer import Tx
from ..core import traffic
from ..core.engine import Engine
from ..files.shared_reading import CONCURRENT
from ..rules import redaction
from ..rules.clock import normalize_iso
from ..rules.limits import check_content
from . import body
from .capture import Capture

MAX_ID = 128  # a memory id is a uuid; anything far longer is not one
# Changes per apply transaction. A pulled batch (worker.BATCH) is applied in slices, each
# with its cursor, so that a recall waits for at most one slice's transaction; within one,
# new memories go in one statement per table.
SLICE = 64
# New memories per statement within a catch-up's job, which steps aside between them for
# a request being served (unless a write waits for the writer), and between a part's own
# statements: a slice's writing, ~13 ms of CPU that a recall otherwise shared, in pieces
# of ~1 ms at most (the entries' insert), the commit's ~3 ms apart. (FTS5 makes an index
# segment a statement: four a slice, where a live slice makes one.)
PART = 16
# A catch-up applied while requests come rests between its pieces (service/core/traffic.py,
# DUTY) only while it is ahead of PACED_RATE memories/s (`_Schedule`): what it gives the
# requests is its speed above that (issue 28's goal for an initial sync is 1,000/s), and
# on a machine too busy for it, nothing.
PACED_RATE = 1_200
# A catch-up batch that begins more than this many seconds after the last one ended
# begins a schedule of its own (another catch-up, or the same one after a wait).
FRESH = 1.0
# Sentences per tokenizer call in a slice's split into passages (`_paced`): no more than
# the tokenizer counts on the calling thread (a larger call goes to its own thread pool,
# whose threads run at the daemon's priority and spin while they wait for work: the
# catch-up's counting, done on its niced thread, took the cores from a recall there).
SENTENCES = SERIAL_COUNT


@dataclass
class Ready:
    """One pulled row, checked: a change to apply, why it is refused, or neither (a
    space not joined here: passed over)."""

    seq: int
    change: Change | None = None
    refused: str | None = None
    put: body.Put | None = None
    edge: body.Edge | None = None
    emb: Embedding | None = None
    flags: list[str] = field(default_factory=list)
    author: str = ""  # the hub role that appended it (Pulled.author)
    new_text: bool = False  # its text is not stored here yet: to embed (or take) and judge
    carried: Vector | None = None  # its whole vector, as it came from our model
    # For a memory new here, what is stored and the digest of it (made here, outside the
    # writer, where a request can step in between: the writer's job is the part it can't)
    entry: p.Entry | None = None
    digest: str | None = None


def prepare(
    engine: Engine,
    pulled: Sequence[Pulled | Rejected],
    pause: Callable[[], None] = traffic.never,
) -> list[Ready]:
    """Each change decoded and checked, outside the writer; `pause` (a catch-up's:
    service/core/traffic.py) is called before each text's checks, the work a request
    would wait behind (a malformed or known change costs next to nothing)."""
    conn = engine.reader()
    # The role reads every space it is a member of; this home keeps those joined here
    # (`hub join` on this machine). A row of another is passed over: a later join
    # here catches its space up from the start (worker.fix_catch_ups).
    joined = set(rows.spaces(conn))
    changes = [
        item.change for item in pulled if isinstance(item, Pulled) and item.change.space in joined
    ]
    done = rows.applied_of(conn, [c.change_id for c in changes])
    # At or below a space's pruned position, a change was applied and its id forgotten
    # (worker.prune): known too.
    pruned = {space: rows.pruned(conn, space) for space in {c.space for c in changes}}
    done |= {
        item.change.change_id
        for item in pulled
        if isinstance(item, Pulled)
        and item.change.space in joined
        and item.seq <= pruned[item.change.space]
    }
    stored = entries.by_ids(conn, [c.memory_id for c in changes if c.kind == body.PUT])
    ready = []
    for item in pulled:
        if isinstance(item, Pulled) and item.change.space not in joined:
            ready.append(Ready(item.seq))  # no change, no refusal: the cursor passes it
            continue
        r = _prepare(engine, item, done, stored, pause)
        if isinstance(item, Pulled):
            r.author = item.author
        ready.append(r)
    _embed_and_judge(engine, [r for r in ready if r.new_text], pause)
    return ready


def _prepare(
    engine: Engine,
    item: Pulled | Rejected,
    done: set[str],
    stored: dict[str, EntryRow],
    pause: Callable[[], None],
) -> Ready:
    if isinstance(item, Rejected):
        return Ready(item.seq, refused=f"hub row {item.seq}: {item.reason}")
    c = item.change
    if c.change_id in done:
        # Ours coming back, or a pull again from an earlier position: nothing to check or
        # embed (an old version's text would be embedded for nothing). apply skips it.
        return Ready(item.seq, c)
    try:
        if not c.memory_id or len(c.memory_id) > MAX_ID or "\x00" in c.memory_id:
            raise ValueError(f"bad memory id {c.memory_id[:MAX_ID]!r}")
        if c.kind == body.PUT:
            return _prepare_put(engine, item.seq, c, stored.get(c.memory_id), pause)
        if c.kind == body.EDGE:
            return Ready(item.seq, c, edge=body.decode_edge(c.body))
        if c.kind in (body.DELETE, body.PURGED):
            return Ready(item.seq, c)
        raise ValueError(f"unknown kind {c.kind[:32]!r}")
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError, EnyalError) as exc:
        why = exc.message if isinstance(exc, EnyalError) else str(exc)
        return Ready(item.seq, c, refused=f"hub row {item.seq} (change {c.change_id}): {why}")


def _prepare_put(
    engine: Engine, seq: int, c: Change, row: EntryRow | None, pause: Callable[[], None]
) -> Ready:
    put = body.decode_put(c.body)
    s = put.state
    check_content(s.content)
    normalize_iso(s.created_at, "created_at")
    normalize_iso(s.updated_at, "updated_at")
    pause()
    # Someone else's writing: redacted as any write is, judged as any write is.
    clean = redaction.scrub(engine.redactor, content=s.content, tags=s.tags)
    s = msgspec.structs.replace(s, content=clean.content or "", tags=clean.tags or [])
    put = msgspec.structs.replace(put, state=s)
    if row is not None and row.content == s.content:
        return Ready(seq, c, put=put)  # its text is stored already, with its vectors
    return Ready(seq, c, put=put, new_text=True, carried=_carried(engine, c))


def _carried(engine: Engine, c: Change) -> Vector | None:
    """The change's whole vector, when our model made it; else None (embedded here)."""
    dim = engine.embedder.dim
    if (
        c.vector is not None
        and c.model_id == engine.embedder.files.model_id
        and len(c.vector) == dim * 4
    ):
        whole = np.frombuffer(c.vector, dtype="<f4").astype(np.float32)
        if np.all(np.isfinite(whole)):
            return whole
    return None


def _embed_and_judge(engine: Engine, todo: list[Ready], pause: Callable[[], None]) -> None:
    """The new texts' vectors and verdicts, for a whole pulled batch at once: the whole
    vector carried when our model made it, a long text's passages (which do not travel)
    split with every sentence of the batch counted in one tokenizer call and embedded in
    one model call; the rest embedded whole here. Then each judged on those vectors, as
    any write is (the classifier reads the carried vector: nothing is embedded for it)."""
    carried = [r for r in todo if r.carried is not None]
    texts = [_text(r) for r in carried]
    # The tokenizer's calls and the model's run are not interruptible: not begun while a
    # request is served (a recall arriving meanwhile shares the cores with them), and the
    # sentences counted SENTENCES a call (~21 us each: a slice's at once, ~1.3 ms).
    parts = passages.split_many(texts, _paced(engine.embedder.count_tokens, pause))
    flat = [part for ps in parts for part in ps]
    if flat:
        pause()
    vecs = engine.embed_many(flat) if flat else None
    at = 0
    for r, ps in zip(carried, parts, strict=True):
        assert r.carried is not None
        if ps and vecs is not None:
            r.emb = Embedding(r.carried, vecs[at : at + len(ps)], tuple(ps))
            at += len(ps)
        else:
            r.emb = Embedding.of(r.carried)
    rest = [r for r in todo if r.carried is None]
    if rest:  # (not even asked with none: it would wait for a model slot a recall holds)
        for r, emb in zip(rest, engine.embed_memories([_text(r) for r in rest]), strict=True):
            r.emb = emb
    for r in todo:
        pause()
        assert r.put is not None and r.emb is not None
        s = r.put.state
        r.flags = judge_memory(
            s.content, s.tags, s.content_type, r.emb.whole, r.emb.passages, parts=r.emb.parts
        )
        assert r.change is not None
        r.entry = _entry(r, s)
        r.digest = _digest(r.entry)


def _paced(
    count: Callable[[list[str]], list[int]], pause: Callable[[], None]
) -> Callable[[list[str]], list[int]]:
    """`count` (the tokenizer's) SENTENCES texts a call, after a step aside each."""

    def counted(texts: list[str]) -> list[int]:
        out: list[int] = []
        for at in range(0, len(texts), SENTENCES):
            pause()
            out += count(texts[at : at + SENTENCES])
        return out

    return counted


def _text(r: Ready) -> str:
    assert r.put is not None
    return r.put.state.content


def apply_pulled(
    engine: Engine, capture: Capture, pulled: Sequence[Pulled | Rejected], key: str = "cursor"
) -> list[str]:
    """Check and apply `pulled` (after the cursor `key` in hub_state: the log's, or a
    space's catching up) a SLICE at a time, each slice of texts one writer job that moves
    the cursor past it (rows without a text, refused or known, ride along with the next:
    a backlog of refused rows is one job, not one a slice); what was refused or
    quarantined (for `hub status`). A slice is checked while the one before commits.
    More than a slice is a catch-up: before each text's checks and each job it steps aside
    while a request is served (service/core/traffic.py), so a recall waits for at most one
    text's checks and one slice's writing; a slice or less (live changes) goes at once."""
    if len(pulled) <= SLICE:
        return _apply_slices(engine, capture, pulled, key, traffic.never)
    _schedule.begin()
    with traffic.quick_switches():  # a request arriving gets the interpreter's lock sooner
        pause = traffic.budget(SLICE, _schedule.due)
        try:
            return _apply_slices(engine, capture, pulled, key, pause, _schedule.written)
        finally:
            _schedule.ended = time.monotonic()


class _Schedule:
    """A catch-up's time, across its batches: from its first batch's start, the rows its
    jobs wrote (and a slice more) at PACED_RATE. Its whole wall counts, the pulls and the
    worker's rounds between batches with it: the sync's rate is what must stay above it
    (one batch's own, paced to 1,200/s, left a sync of ~900/s). Only the worker's niced
    thread applies catch-ups, one batch at a time."""

    def __init__(self) -> None:
        self.began = self.ended = -FRESH
        self.written = [0]

    def begin(self) -> None:
        now = time.monotonic()
        if now - self.ended > FRESH:
            self.began, self.written[0] = now, 0

    def due(self) -> float:
        return self.began + (self.written[0] + SLICE) / PACED_RATE


_schedule = _Schedule()


def _apply_slices(
    engine: Engine,
    capture: Capture,
    pulled: Sequence[Pulled | Rejected],
    key: str,
    pause: traffic.Pause,
    written: list[int] | None = None,
) -> list[str]:
    """`written[0]` counts the rows of the jobs committed (a catch-up's `_Schedule`)."""
    problems: list[str] = []
    writing: Callable[[], list[str]] | None = None
    ready: list[Ready] = []
    queued = 0  # rows of the job under way
    for at in range(0, len(pulled), SLICE):
        ready += prepare(engine, pulled[at : at + SLICE], pause)
        texts = sum(r.put is not None for r in ready)
        if at + SLICE < len(pulled) and texts < SLICE:
            continue  # refused or known rows ride along with the next: not an fsync each
        # One slice written at a time: queued together, the writer took them in one
        # transaction, a job of up to a batch that no request could step in front of.
        if writing is not None:
            problems += writing()
            if written is not None:
                written[0] += queued
        if texts:
            pause()  # not for a job of refused rows alone: a backlog of those would crawl
        job = _applying(engine, capture, ready, ready[-1].seq, key, pause)
        # A catch-up's job is committed at low CPU priority (store/writer.py): the part and
        # the commit under way when a recall arrives give its threads the cores.
        writing = engine.write_soon(job, background=pause is not traffic.never)
        queued, ready = len(ready), []
    if writing is not None:
        problems += writing()
        if written is not None:
            written[0] += queued
    return problems


def apply(
    engine: Engine,
    capture: Capture,
    ready: Sequence[Ready],
    cursor: int,
    key: str = "cursor",
) -> list[str]:
    """Apply a prepared batch and move the cursor `key` to `cursor`, in one transaction.
    Returns what was refused or quarantined. New memories (the bulk of an initial sync)
    are written together, one statement per table (`_put_new`); every other change one by
    one, in order, each in a savepoint so that one that fails leaves nothing behind."""
    return engine.write(_applying(engine, capture, ready, cursor, key))


def _applying(
    engine: Engine,
    capture: Capture,
    ready: Sequence[Ready],
    cursor: int,
    key: str,
    pause: traffic.Pause = traffic.never,
) -> Callable[[Tx], list[str]]:
    """`apply`'s writer job; a catch-up's (its `pause` is the checks' budget) steps aside
    before each part of its new memories and before its commit while a request is served,
    and not while a write waits (the transaction is open: readers see what was committed;
    writers would wait)."""
    catching_up = pause is not traffic.never

    def job(tx: Tx) -> list[str]:
        capture.silence(tx)
        new = _new_puts(tx.conn, ready)
        if new:
            hooks = len(tx.after_commit)
            try:
                with tx.conn:  # a savepoint: if any fails, each is tried alone below
                    batch = [ready[i] for i in sorted(new)]
                    step = PART if catching_up else len(batch)
                    for at in range(0, len(batch), step):
                        # (the first too: the job may start well after it was queued)
                        pause(engine.writer.queued)
                        _put_new(engine, tx, batch[at : at + step], pause)
            except (EnyalError, apsw.Error, ValueError):
                del tx.after_commit[hooks:]  # what they would have shown: rolled back
                new = set()
        problems: list[str] = []
        for i, r in enumerate(ready):
            if r.refused is not None:
                problems.append(r.refused)
                continue
            if r.change is None:
                continue  # a space not joined here (`prepare`)
            if i not in new:
                hooks = len(tx.after_commit)
                try:
                    with tx.conn:  # a savepoint: a change that fails leaves nothing behind
                        _apply_one(engine, tx, r)
                except (EnyalError, apsw.Error, ValueError) as exc:
                    del tx.after_commit[hooks:]
                    why = exc.message if isinstance(exc, EnyalError) else str(exc)
                    problems.append(f"hub row {r.seq} (change {r.change.change_id}): {why}")
                    continue
            if r.flags:
                problems.append(
                    f"hub row {r.seq}: memory {r.change.memory_id} quarantined "
                    f"({', '.join(r.flags)})"
                )
        rows.put(tx.conn, key, str(cursor))
        rows.put(tx.conn, "last_pull", engine.clock.now_iso())  # last pull that brought any
        if new:
            # The commit writes the slice's pages to the WAL (~3 ms of CPU, not
            # interruptible): not begun while a request is served either.
            pause(engine.writer.queued)
        return problems

    return job


def _new_puts(conn: apsw.Connection, ready: Sequence[Ready]) -> set[int]:
    """Positions in `ready` of the puts of memories this home has never had (no entry,
    no version, no tombstone) and that no other change of the batch names: each is
    applied alike whatever else the batch holds, so they can go first, together."""
    live = [r.change for r in ready if r.refused is None and r.change is not None]
    named = Counter(c.memory_id for c in live)
    candidates = {
        i
        for i, r in enumerate(ready)
        if r.refused is None
        and r.change is not None
        and r.change.kind == body.PUT
        and r.emb is not None
        and named[r.change.memory_id] == 1
    }
    if not candidates:
        return set()
    changes = {i: ready[i].change for i in candidates}
    ids = [c.memory_id for c in changes.values() if c is not None]
    had = rows.known(conn, ids) | set(entries.by_ids(conn, ids))
    done = rows.applied_of(conn, [c.change_id for c in changes.values() if c is not None])
    spaces = {c.space for c in changes.values() if c is not None}
    pruned = {space: rows.pruned(conn, space) for space in spaces}  # a query a space
    return {
        i
        for i, c in changes.items()
        if c is not None
        and c.memory_id not in had
        and c.change_id not in done
        and ready[i].seq > pruned[c.space]  # else applied, its id since pruned: skipped
    }


def _put_new(
    engine: Engine, tx: Tx, batch: Sequence[Ready], pause: traffic.Pause = traffic.never
) -> None:
    """What `_apply_one` does for a put of a memory new here, for many: the entries,
    vectors, passages, FTS rows (by trigger), first versions and hub rows in one statement
    per table, nothing read back, the index loaded once after commit. A catch-up's
    `pause` comes between the statements (not while a write waits): a part's ~2 ms of CPU
    in pieces of ~1 ms at most (the entries' insert), so that a recall arriving meanwhile
    finds less of it under way."""
    conn = tx.conn
    unless = engine.writer.queued
    now = engine.clock.now_iso()
    made: list[tuple[Ready, Change, body.Put, Embedding, p.Entry]] = []
    for r in batch:
        assert r.change is not None and r.put is not None and r.emb is not None
        assert r.entry is not None
        made.append((r, r.change, r.put, r.emb, r.entry))
    rids = entries.insert_many(conn, [(e, *emb.blobs()) for _, _, _, emb, e in made])
    pause(unless)
    versions.record_many(conn, [e.id for *_, e in made], "created", now)
    pause(unless)
    rows.mark_applied_many(conn, [(c.change_id, r.seq, c.space) for r, c, *_ in made])
    rows.observe(conn, max(c.clock for _, c, *_ in made))
    rows.set_versions(
        conn,
        [
            (c.memory_id, c.space, (c.clock, c.device), put.based, r.digest or _digest(e))
            for r, c, put, _, e in made
        ],
    )
    pause(unless)
    engine.index_new_after_commit(
        tx,
        [
            (rid, emb, (e.scope_level, e.scope_path), e.content_type, not e.is_deprecated)
            for rid, (*_, emb, e) in zip(rids, made, strict=True)
        ],
    )
    waiting = rows.with_edges(conn, [e.id for *_, e in made])  # one query, not one a memory
    for *_, e in made:
        engine.changes.note(tx, "created", e)
        if e.id in waiting:
            _edges_waiting(engine, tx, e.id)


def _digest(entry: p.Entry) -> str:
    """The digest of the state stored for `entry`, as the capture will read it back (the
    state holds no rid: the row's is not needed, nor known before the insert)."""
    return body.digest(body.state_of(inserted_row(0, entry)))


def _apply_one(engine: Engine, tx: Tx, r: Ready) -> None:
    c = r.change
    assert c is not None
    conn = tx.conn
    if rows.applied(conn, c.change_id):
        rows.seen_at(conn, c.change_id, r.seq)  # ours back: its position, to prune by
        return  # a pull that overlaps, or our own change coming back
    if r.seq <= rows.pruned(conn, c.space):
        return  # applied, its id since pruned (worker.prune): a pull from an old position
    if c.kind == body.PURGED:
        return  # its memory's tombstone comes later in the log, and says all there is
    rows.mark_applied(conn, c.change_id, r.seq, c.space)
    rows.observe(conn, c.clock)
    version = (c.clock, c.device)
    if c.kind == body.DELETE:
        _delete(engine, tx, c, version)
    elif c.kind == body.PUT:
        assert r.put is not None
        _put(engine, tx, c, r, r.put, version)
    else:
        assert r.edge is not None
        _edge(engine, tx, r.edge, version)


def _put(engine: Engine, tx: Tx, c: Change, r: Ready, put: body.Put, version: rows.Version) -> None:
    conn = tx.conn
    if rows.tombstone(conn, c.memory_id) is not None:
        return  # deleted for good: a put, however late or high, does not bring it back
    member = rows.member(conn, c.memory_id)
    row = entries.get(conn, c.memory_id)
    if member is not None and member.clock > 0:
        # Concurrent: neither writer held the other's version (or a later one).
        concurrent = put.based < member.version and member.based < version
        if version < member.version:
            if concurrent:
                rows.keep_conflict(conn, c.memory_id, version, c.body)
                rows.set_review(conn, c.memory_id, CONCURRENT)
            return
        if concurrent and row is not None:
            was = body.encode(body.Put(state=body.state_of(row), based=member.based))
            rows.keep_conflict(conn, c.memory_id, member.version, was)
            rows.set_review(conn, c.memory_id, CONCURRENT)
        elif not concurrent and member.review is not None:
            rows.set_review(conn, c.memory_id, None)  # made after seeing the winner: settled
    else:
        rows.enrol(conn, c.memory_id, c.space)
    _write_state(engine, tx, c.memory_id, put.state, r)
    after = entries.get(conn, c.memory_id)
    assert after is not None
    digest = body.digest(body.state_of(after))
    rows.set_version(conn, c.memory_id, c.space, version, put.based, digest)


def _write_state(engine: Engine, tx: Tx, memory_id: str, s: body.State, r: Ready) -> None:
    conn = tx.conn
    now = engine.clock.now_iso()
    row = entries.get(conn, memory_id)
    emb = r.emb
    if row is None or row.content != s.content:
        emb = emb or engine.embed_memory(s.content)  # not expected: prepare embedded it
    reason = ", ".join(r.flags) or None
    if row is None:
        assert emb is not None
        entry = _entry(r, s)
        rid = entries.insert(conn, entry, *emb.blobs())
        versions.record(conn, memory_id, "created", now)
        engine.index_after_commit(
            tx, rid, emb, (s.scope_level, s.scope_path), s.content_type, not s.forgotten
        )
        engine.changes.note(tx, "created", entry)
        _edges_waiting(engine, tx, memory_id)
        return
    fields: dict[str, object] = {}
    if s.content != row.content:
        fields.update(
            content=s.content,
            quarantined=bool(r.flags),
            quarantine_reason=reason,
        )
        # The text is the other device's now: it is whom `written_by` speaks of (and
        # not the role that sent the text before, should this change name none).
        kept = {k: v for k, v in row.entry().metadata.items() if k != HUB_AUTHOR}
        metadata = {**kept, **_came_from(r)}
        fields["metadata"] = metadata
    tags = list(dict.fromkeys(s.tags))
    if tags != row.tags():
        fields["tags"] = tags
    for name in ("content_type", "confidence", "importance", "status", "due", "written_by"):
        if getattr(s, name) != getattr(row, name):
            fields[name] = getattr(s, name)
    if s.forgotten != row.is_deprecated:
        fields["is_deprecated"] = s.forgotten
    if not fields:
        return
    fields["updated_at"] = s.updated_at
    entries.update_fields(conn, row.rid, fields)
    kind: Literal["forgotten", "restored", "updated"] = "updated"
    if s.forgotten != row.is_deprecated:
        kind = "forgotten" if s.forgotten else "restored"
    versions.record(conn, memory_id, kind, now)
    if "content" in fields:
        assert emb is not None
        entries.replace_vector(conn, row.rid, *emb.blobs())
        engine.index_after_commit(tx, row.rid, emb, row.scope, s.content_type, not s.forgotten)
    else:
        if s.content_type != row.content_type:
            engine.retype_after_commit(tx, row.rid, s.content_type)
        if "is_deprecated" in fields:
            tx.after_commit.append(
                functools.partial(engine.index.set_active, row.rid, not s.forgotten)
            )
    after = entries.get(conn, memory_id)
    assert after is not None
    engine.changes.note(tx, kind, after, previous_type=row.content_type)


def _came_from(r: Ready) -> dict[str, str]:
    """Where a pulled text came from, kept in its metadata for `written_by` to show:
    the device whose change brought it and, when the hub named one, its role."""
    assert r.change is not None
    return {HUB_DEVICE: r.change.device, **({HUB_AUTHOR: r.author} if r.author else {})}


def _entry(r: Ready, s: body.State) -> p.Entry:
    """The entry a put of a memory new here stores (quarantined when judged so), naming
    where its change came from (_came_from)."""
    c, flags = r.change, r.flags
    assert c is not None
    return p.Entry(
        id=c.memory_id,
        content=s.content,
        content_type=s.content_type,
        scope_level=s.scope_level,
        scope_path=s.scope_path,
        confidence=s.confidence,
        created_at=s.created_at,
        updated_at=s.updated_at,
        accessed_at=None,
        access_count=0,
        source_type=None,
        source_ref=None,
        tags=list(dict.fromkeys(s.tags)),
        metadata=_came_from(r),
        is_deprecated=s.forgotten,
        content_hash=entries.content_hash(s.content),
        importance=s.importance,
        written_by=s.written_by,
        quarantined=bool(flags),
        quarantine_reason=", ".join(flags) or None,
        status=s.status,
        due=s.due,
    )


def _delete(engine: Engine, tx: Tx, c: Change, version: rows.Version) -> None:
    conn = tx.conn
    rows.bury(conn, c.memory_id, c.space, version)
    rows.forget_member(conn, c.memory_id)
    row = entries.get(conn, c.memory_id)
    if row is None:
        return
    engine.changes.note_deleted(tx, row)
    entries.delete(conn, row.rid)
    tx.after_commit.append(functools.partial(engine.index.remove, row.rid))
    engine.purge_after_commit(tx)


def _edge(engine: Engine, tx: Tx, e: body.Edge, version: rows.Version) -> None:
    conn = tx.conn
    known = rows.edge(conn, e.source, e.target, e.edge_type)
    if known is not None and known[0] >= version:
        return  # a later add or remove of this edge is in force
    rows.set_edge(conn, e.source, e.target, e.edge_type, version, e.present)
    source, target = entries.get(conn, e.source), entries.get(conn, e.target)
    if source is None or target is None or source.id == target.id:
        return  # an end deleted for good: nothing to link (its version is kept above)
    existing = graph.find(conn, e.source, e.target, e.edge_type)
    if e.present and existing is None:
        graph.insert(conn, e.source, e.target, e.edge_type, 1.0, {}, engine.clock.now_iso())
        engine.changes.note_edge(tx, "linked", source, target, e.edge_type)
    elif not e.present and existing is not None:
        graph.delete(conn, existing.id)
        engine.changes.note_edge(tx, "unlinked", source, target, e.edge_type)


def _edges_waiting(engine: Engine, tx: Tx, memory_id: str) -> None:
    """Edges in force whose other end was here before this memory arrived: made now, so
    an edge is the same whichever of its three changes came last."""
    for source, target, edge_type in rows.edges_present(tx.conn, memory_id):
        ends = entries.get(tx.conn, source), entries.get(tx.conn, target)
        if ends[0] is None or ends[1] is None or source == target:
            continue
        if graph.find(tx.conn, source, target, edge_type) is None:
            graph.insert(tx.conn, source, target, edge_type, 1.0, {}, engine.clock.now_iso())
            engine.changes.note_edge(tx, "linked", ends[0], ends[1], edge_type)  # type: ignore[arg-type]

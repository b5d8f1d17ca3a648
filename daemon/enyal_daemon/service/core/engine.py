"""The engine: the resources every verb shares, and nothing else.

One Engine per daemon holds the database (the single writer and a reader per
thread), the vector index, the keyword document counts, the embedder with its two
inference slots, the bookkeeping buffer and the publisher of live changes. The verbs
live in their own modules (memories, recall, graph, validity, health, analytics, stats,
transfer), each a set of functions taking the engine; none reaches into another's
state, and the engine imports none of them.

Everything here is thread-safe: the server calls verbs from worker threads; reads
run on per-thread connections, writes go through the one Writer.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import apsw
import numpy as np

from enyal_protocol import wire as p

from ...embedder import passages
from ...embedder.batcher import Batcher
from ...embedder.memo import QueryVectors, TokenCounts
from ...embedder.model_files import ModelFiles
from ...embedder.onnx import Embedder, Vectors
from ...embedder.passages import Embedding
from ...errors import InvalidValue, ModelUnavailable, NotFound, ShuttingDown, StorageError
from ...hygiene import head
from ...hygiene.secrets import BUILT_IN, Redactor
from ...index import keywords
from ...index.entry_index import EntryIndex
from ...index.groups import ScopeGroups, kind_code
from ...index.vectors import Int64s
from ...store import db, deleted, entries, failures, graph, meta, versions
from ...store.remembered import Remembered
from ...store.rows import EntryRow
from ...store.writer import Tx, Version, Writer
from ..rules import expiry, redaction, scoring
from ..rules.clock import SYSTEM, Clock
from . import changes, traffic
from .bookkeeping import Bookkeeping
from .session_state import Sessions

log = logging.getLogger(__name__)

T = TypeVar("T")
PARALLEL_EMBED_FROM = 16
MIN_PREFIX = 4
SHOW_AMBIGUOUS = 5
EMBED_CONCURRENCY = 2  # one inference per core; more only queues inside onnxruntime


def bind_model(conn: apsw.Connection, files: ModelFiles, dim: int) -> None:
    """The vectors in a database are only comparable with the model that made them: a new
    database records the model, one made by another model is refused."""
    recorded = meta.get(conn, "model_id")
    if recorded is None:
        with conn:
            meta.record_model(conn, files.model_id, dim, files.model_sha256)
    elif recorded != files.model_id:
        raise ModelUnavailable(
            f"this database was embedded with {recorded}, but the model found is "
            f"{files.model_id}; run `enyal reindex` to re-embed it"
        )


def require_entry(conn: apsw.Connection, entry_id: str) -> EntryRow:
    """The entry with this id, or with an id this unique prefix starts (as git takes
    abbreviated hashes, MIN_PREFIX characters at least); NotFound, or InvalidValue for an
    ambiguous prefix: the one place that says so."""
    row = entries.get(conn, entry_id)
    if row is not None:
        return row
    if len(entry_id) >= MIN_PREFIX and "\x00" not in entry_id:
        matches = entries.by_prefix(conn, entry_id, SHOW_AMBIGUOUS + 1)
        if len(matches) == 1:
            return matches[0]
        if matches:
            ids = [m.id for m in matches[:SHOW_AMBIGUOUS]]
            more = ", …" if len(matches) > SHOW_AMBIGUOUS else ""
            raise InvalidValue(
                f"id prefix {entry_id!r} is ambiguous: {', '.join(ids)}{more}",
                {"matches": ids},
            )
    gone = deleted.find(conn, entry_id, len(entry_id) >= MIN_PREFIX)
    if gone is not None:
        raise NotFound(
            f"entry {gone[0]} was deleted for good on {gone[1][:10]}: nothing of it is kept",
            {"id": gone[0], "deleted_at": gone[1]},
        )
    raise NotFound(f"no entry with id {entry_id!r}")


class Engine:
    def __init__(
        self,
        db_path: Path,
        embedder: Embedder,
        half_lives: Mapping[str, float] | None = None,
        secrets: Redactor = BUILT_IN,
        redact: bool = True,
        clock: Clock = SYSTEM,
    ) -> None:
        self.db_path = db_path
        self.clock = clock  # the verbs' "now" (service/rules/clock.py): a test's can be moved
        self.embedder = embedder
        self.decay_rates = scoring.decay_rates(half_lives)  # config.toml's [decay]
        self.secrets = secrets  # the rules in force: built-in ones and config.toml's
        self.redactor = secrets if redact else None  # what writes go through; None: off
        self.index = EntryIndex(embedder.dim)
        self.groups = ScopeGroups()
        self.bookkeeping = Bookkeeping(clock, lambda query: redaction.text(self.redactor, query))
        self.changes = changes.Publisher(
            clock
        )  # live change notifications (service/core/changes.py)
        self.sessions = Sessions()  # what each client session was shown (session_seen)
        self._local = threading.local()
        self._readers: list[apsw.Connection] = []
        self._readers_lock = threading.Lock()
        self._embed_slots = threading.BoundedSemaphore(EMBED_CONCURRENCY)
        self._embed_pool = ThreadPoolExecutor(EMBED_CONCURRENCY, thread_name_prefix="enyal-embed")
        _start_threads(self._embed_pool, EMBED_CONCURRENCY)
        self._batcher = Batcher(embedder, self._embed_slots, EMBED_CONCURRENCY)
        self.token_counts = TokenCounts(embedder.count_tokens)  # budgets' (embedder/memo.py)
        self._query_vectors = QueryVectors()
        conn = db.connect(db_path, writer=True)
        try:
            bind_model(conn, embedder.files, embedder.dim)
        except Exception:
            conn.close()
            raise
        self.read_only = db.read_only(conn)
        if self.read_only:
            log.warning("%s cannot be written: serving reads only", db_path)
        self.store_version = Version()  # what remembered search results are checked by
        self._reads = itertools.count(1)  # `_unwritten` on a store this daemon cannot write
        self.keyword_results = keywords.Remembered(self._unwritten)
        # The rids holding a filter's tags and metadata pairs (recall.py _holding), while no
        # memory changed: agents filter by the same few tags again and again.
        self.held_rids: Remembered[Int64s] = Remembered(self._unwritten, 16)
        # The store's last write by an asking time (recall.py _last_write), while no memory
        # changed: what recency counts to, asked again by every recall.
        self.last_writes: Remembered[str | None] = Remembered(self._unwritten, 16)
        # Kept while no text can have changed (the store's version). A store this daemon
        # cannot write may be written by another process: its counts keep the TTL.
        self.doc_counts = keywords.DocCounts(
            lambda: None if self.read_only else self.store_version.value
        )
        # The brief's rows, as long as neither memories nor their use changed (brief.py).
        self.brief_rows: Remembered[Any] = Remembered(lambda: self.store_version.used, 64)
        # The brief's listings that read neither use nor (within their slack) the time:
        # kept while no memory changed (brief.py _stale, _changed).
        self.brief_listed: Remembered[Any] = Remembered(self._unwritten, 64)
        # What the store holds at all (validity's edge types, cited files: `holds`), while
        # no memory, edge or source changed: most stores hold neither, and a recall then
        # skips the statements that look them up for its hits.
        self._holds: Remembered[Any] = Remembered(self._unwritten, 4)
        self.writer = Writer(
            conn,
            None if self.read_only else db.connect(db_path, writer=False),
            self.store_version,
            _lull,
        )
        self._reopen_lock = threading.Lock()
        # Bumped when the database is opened anew (writable again): each thread's reader
        # is then opened anew too, as one opened read-only (immutable) sees no write.
        self._generation = 0
        self.expiry = expiry.Expiry(entries.next_expiry(self.reader()))
        self.index.load(
            (
                (rid, blob, deprecated, self.groups.key(level, path), kind_code(content_type))
                for rid, blob, deprecated, level, path, content_type in entries.iter_vectors(
                    self.reader()
                )
            ),
            (
                (rid, i, blob, deprecated, self.groups.key(level, path), kind_code(content_type))
                for rid, i, blob, deprecated, level, path, content_type in entries.iter_passages(
                    self.reader()
                )
            ),
        )

    def close(self) -> None:
        self.flush_bookkeeping()
        self.writer.close()
        self._batcher.close()
        self._embed_pool.shutdown()
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()

    # --- the database ------------------------------------------------------------------

    def reader(self) -> apsw.Connection:
        """This thread's read connection (WAL: it never waits for the writer)."""
        conn: apsw.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "generation", 0) != self._generation:
            conn = None  # the old one stays in _readers (closed with the engine): a cursor
            # of this thread may still be reading from it
        if conn is None:
            conn = db.connect(self.db_path, writer=False)
            self._local.conn = conn
            self._local.generation = self._generation
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def _unwritten(self) -> int:
        """What the engine's remembered reads are kept by: the store's version, which any
        write of a memory, an edge or a source moves. A store this daemon cannot write may
        be written by another process, so there a new count each time: nothing is kept."""
        return -next(self._reads) if self.read_only else self.store_version.value

    def holds(self, conn: apsw.Connection, read: Callable[[apsw.Connection], T]) -> T:
        """`read(conn)`, a question about what the store holds at all, kept while no
        write changes it (`_unwritten`)."""
        value: T = self._holds.get(read, lambda: read(conn))
        return value

    def writable_again(self) -> bool:
        """Storage that was read-only when the database was opened (a read-only mount, a
        file without write permission) may have been given write access back since: then
        the writer is opened again, for writing, and writes work without a restart.
        Cheap while nothing changed (two access(2) calls). Returns whether it reopened."""
        if not self.read_only or not db.writable(self.db_path):
            return False
        with self._reopen_lock:
            if not self.read_only:
                return False
            try:
                conn = db.connect(self.db_path, writer=True)
            except (apsw.Error, StorageError) as exc:
                log.warning("%s still cannot be opened for writing: %s", self.db_path, exc)
                return False
            if db.read_only(conn):
                conn.close()
                return False
            old = self.writer
            self.writer = Writer(
                conn, db.connect(self.db_path, writer=False), self.store_version, _lull
            )
            self._generation += 1
            self.read_only = False
            old.close()  # jobs it had accepted fail as read-only, as they would have
        log.info("%s can be written again: writes resume", self.db_path)
        return True

    def write(self, job: Callable[[Tx], T], durable: bool = True) -> T:
        """Run `job` on the writer; returns once its transaction has committed. A durable
        write is announced (traffic.py) until then: bookkeeping waits for it."""
        if durable:
            traffic.announce()
        try:
            self.writable_again()
            return self.writer.run(job, durable)
        except apsw.Error as exc:
            self._storage_failed(exc)
            raise
        finally:
            if durable:
                traffic.settle()

    def release_write_cache(self) -> None:
        """The writer's page cache freed (Writer.release_cache): after a burst of writes.
        Only memory: a writer that cannot open a transaction now (another process holds
        the write lock, the disk went read-only, the daemon is stopping) keeps its cache,
        and the writes it has made stand as answered."""
        with contextlib.suppress(apsw.Error, ShuttingDown):
            self.writer.release_cache()

    def write_soon(
        self, job: Callable[[Tx], T], durable: bool = True, background: bool = False
    ) -> Callable[[], T]:
        """`write` without waiting: queues `job` and returns the wait for its outcome, so
        the caller can prepare the next job while this one commits (its fsync).
        `background`: committed alone at low CPU priority (store/writer.py)."""
        self.writable_again()
        future = self.writer.submit(job, durable, background)

        def outcome() -> T:
            try:
                return future.result()
            except apsw.Error as exc:
                self._storage_failed(exc)
                raise

        return outcome

    def _storage_failed(self, exc: apsw.Error) -> None:
        """A write failed: raise the StorageError that says why, if the storage is why."""
        storage = failures.describe(exc, self.db_path)
        if storage is not None:
            raise storage from exc

    def sweep_expired(self) -> None:
        """Delete what has expired, if anything has (service/rules/expiry.py)."""
        now = self.clock.now_iso()
        if self.read_only or not self.expiry.due(now):
            return

        try:
            self.write(functools.partial(self.sweep_on, now=now))
        except StorageError as exc:  # a full disk must not stop reads: sweep next time
            log.warning("could not delete expired entries: %s", exc.message)

    def sweep_on(self, tx: Tx, now: str) -> int:
        """Delete what has expired by `now` on this transaction; returns how many."""

        def before_delete(row: EntryRow) -> None:
            self.close_chain(tx, row.id, now)  # its chain holds across the gap
            self.changes.note_deleted(tx, row)

        gone = expiry.sweep(tx, now, before_delete)
        for row in gone:
            tx.after_commit.append(functools.partial(self.index.remove, row.rid))
        if gone:
            self.purge_after_commit(tx)
        earliest = entries.next_expiry(tx.conn)
        # In commit order with the notes of other writes, which also run after commit.
        tx.after_commit.append(lambda: self.expiry.reset(earliest))
        return len(gone)

    def deprecate(self, tx: Tx, row: EntryRow, now: str) -> None:
        """`row` forgotten softly (restorable): marked deprecated, a "forgotten" version
        recorded, out of the index once committed, and the change noted. Its chain is the
        caller's (close_chain), as not every forget closes it."""
        entries.update_fields(tx.conn, row.rid, {"is_deprecated": True})
        versions.record(tx.conn, row.id, "forgotten", now)
        tx.after_commit.append(functools.partial(self.index.set_active, row.rid, False))
        self.changes.note(tx, "forgotten", row)

    def close_chain(self, tx: Tx, entry_id: str, now: str) -> None:
        """`entry_id` leaves its supersession chain (forgotten or deleted): the chain is
        closed over it (store/graph.py), and the new edges are changes like any link."""
        self._note_edges(tx, "linked", graph.close_over(tx.conn, entry_id, now))

    def reopen_chain(self, tx: Tx, entry_id: str) -> None:
        """`entry_id` is back: the edges that closed its chain over it go."""
        self._note_edges(tx, "unlinked", graph.reopen(tx.conn, entry_id))

    def _note_edges(self, tx: Tx, kind: p.ChangeKind, edges: list[p.Edge]) -> None:
        rows = entries.by_ids(tx.conn, [i for e in edges for i in (e.source_id, e.target_id)])
        for e in edges:
            if e.source_id in rows and e.target_id in rows:
                self.changes.note_edge(tx, kind, rows[e.source_id], rows[e.target_id], e.edge_type)

    def purge_after_commit(self, tx: Tx) -> None:
        """Text deleted for good on `tx` is gone from the database file once it commits
        (secure_delete zeroes it: store/db.py); its old pages still sit in the WAL, so
        the WAL is checkpointed and truncated before the write is acknowledged."""

        def purge() -> None:
            if not self.writer.empty_wal():
                log.warning("a reader kept part of the WAL; the next checkpoint empties it")

        tx.after_commit.append(purge)

    def note_expiry(self, tx: Tx, when: str | None) -> None:
        """A write on `tx` sets an expiry: known to sweep_expired once it has committed."""
        if when is not None:
            tx.after_commit.append(lambda: self.expiry.note(when))

    def require(self, entry_id: str, conn: apsw.Connection | None = None) -> EntryRow:
        return require_entry(conn or self.reader(), entry_id)

    def index_after_commit(
        self,
        tx: Tx,
        rid: int,
        emb: Embedding,
        scope: tuple[str, str | None],
        content_type: str,
        active: bool = True,
    ) -> None:
        """Show the row's (new) vectors to searches once its transaction has committed."""
        group = self.groups.key(*scope)
        kind = kind_code(content_type)
        tx.after_commit.append(
            lambda: self.index.add(
                rid, emb.whole, emb.passages, active=active, group=group, kind=kind
            )
        )

    def index_new_after_commit(
        self, tx: Tx, rows: Sequence[tuple[int, Embedding, tuple[str, str | None], str, bool]]
    ) -> None:
        """`index_after_commit` of many (rid, vectors, scope, type, active) new to the index,
        in one bulk load once committed: the index's write lock taken once, not once a row
        (a replica's initial sync adds hundreds at a time while recalls read)."""
        whole, parts = [], []
        for rid, emb, scope, content_type, active in rows:
            group, kind = self.groups.key(*scope), kind_code(content_type)
            whole.append((rid, emb.whole.tobytes(), not active, group, kind))
            parts += [
                (rid, i, v.tobytes(), not active, group, kind) for i, v in enumerate(emb.passages)
            ]
        tx.after_commit.append(functools.partial(self.index.load, whole, parts))

    def retype_after_commit(self, tx: Tx, rid: int, content_type: str) -> None:
        """A type change without a new vector: the index's type filter must see it."""
        kind = kind_code(content_type)
        tx.after_commit.append(lambda: self.index.set_kind(rid, kind))

    # --- the model ---------------------------------------------------------------------

    def embed(self, text: str) -> Vectors:
        """One text; concurrent requests' texts share an inference (embedder/batcher.py)."""
        return self._batcher.embed(text)

    def embed_query(self, text: str) -> Vectors:
        """A query's vector, from the part of it the model reads as one (Embedder.query_window)."""
        return self.embed_query_soon(text).result()

    def embed_query_soon(self, text: str) -> Future[Vectors]:
        """`embed_query`'s vector, to come: a recall searches its words meanwhile
        (onnxruntime and SQLite both release the GIL), on its own thread rather than
        handing the search to another (a hop each way, ~1 ms of a recall's CPU: issue 30).
        A query asked again (a hook's about the same file or error) is not embedded again
        (embedder/memo.py): the vector comes done, read-only."""
        window = self.embedder.query_window(text)
        known = self._query_vectors.get(window)
        if known is not None:
            return known
        if traffic.in_flight() > EMBED_CONCURRENCY:
            # More requests than embedding workers: a hand-off would only queue it, at the
            # cost of two wake-ups, each able to stall every thread (docs/ARCHITECTURE.md,
            # "Round ten"); a lone recall keeps the worker, its keyword search running
            # meanwhile.
            here: Future[Vectors] = Future()
            here.set_result(self._batcher.here(window))
            return self._query_vectors.keep(window, here)
        return self._query_vectors.keep(window, self._batcher.submit(window))

    def embed_memory(self, text: str) -> Embedding:
        """A memory's text as stored: its vector, and its passages' if it is long. Its
        text goes ahead of the queries waiting to be embedded: a write's client waits on
        it, and under steady recall it would wait behind every query queued (issue 30). A
        long text's whole vector is made from its passages' (passages.whole_of)."""
        (parts,) = passages.tokenized([text], self.embedder.token_ids)
        if head.shipped() is not None:
            return self._embed_with_states(text, parts)
        if not parts.texts:
            return Embedding.of(self._batcher.embed(text, first=True))
        vecs = self.embed_many(parts.texts, parts.ids)
        return Embedding(passages.whole_of(vecs, parts.tokens), vecs, tuple(parts.texts))

    def _embed_with_states(self, text: str, parts: passages.Passages) -> Embedding:
        """`embed_memory`'s Embedding with its runs' token states, for the injection head
        (hygiene/head.py): the same runs, on this thread under an embedding slot. Only
        when a head is shipped; none is (docs/ARCHITECTURE.md, "Round nine")."""
        runs = parts.texts or [text]
        with self._embed_slots:
            vecs, states = self.embedder.embed_many_states(runs, parts.ids or None)
        if not parts.texts:
            return Embedding(vecs[0], vecs[:0], (), tuple(states))
        whole = passages.whole_of(vecs, parts.tokens)
        return Embedding(whole, vecs, tuple(parts.texts), tuple(states))

    def stored_embedding(
        self, rid: int, conn: apsw.Connection | None = None, *, text: str | None = None
    ) -> Embedding | None:
        """The entry's text as it was embedded when stored (None: no vector): what judging
        it again needs when only its tags changed, without embedding it again; with
        `text`, its passages' texts cut from it again (the judge reads each passage's
        words; the store keeps only their vectors)."""
        c = conn if conn is not None else self.reader()
        whole = entries.vector(c, rid)
        if not whole:
            return None
        emb = Embedding.of_blobs(whole, entries.passage_vectors(c, rid))
        if text is None or not len(emb.passages):
            return emb
        parts = tuple(passages.split(text, self.embedder.count_tokens))
        return Embedding(emb.whole, emb.passages, parts)

    def embed_memories(self, texts: list[str]) -> list[Embedding]:
        """Many memories' texts as stored, on both cores (embed_many). Each passage's ids
        are its sentences', counted to cut them: not tokenized again."""
        unique, ids, embeddings = passages.plan_tokenized(texts, self.embedder.token_ids)
        return embeddings(self.embed_many(unique, ids))

    def embed_memories_soon(self, texts: list[str]) -> Callable[[], list[Embedding]]:
        """`embed_memories` without waiting: returns the wait for the vectors, so the caller
        can check and write the previous batch while the embedding pool makes these."""
        # Each passage's ids are its sentences', counted to cut them: not tokenized again.
        unique, ids, embeddings = passages.plan_tokenized(texts, self.embedder.token_ids)
        wait = self.embed_many_soon(unique, ids)
        return lambda: embeddings(wait())

    def embed_many(
        self, texts: list[str], ids: Sequence[list[int] | None] | None = None
    ) -> Vectors:
        """Many texts on both cores: an import is one request, but its batch is split in two
        (alternating by length, so both halves pad alike) and embedded in parallel. `ids`:
        each text's token ids where known (Embedder.embed_many)."""
        if len(texts) < PARALLEL_EMBED_FROM:
            with self._embed_slots:
                return self.embedder.embed_many(texts, ids)
        return self.embed_many_soon(texts, ids)()

    def embed_many_soon(
        self, texts: list[str], ids: Sequence[list[int] | None] | None = None
    ) -> Callable[[], Vectors]:
        """`embed_many` on the embedding pool, without waiting: returns the wait."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        halves = [order[0::2], order[1::2]] if len(texts) >= PARALLEL_EMBED_FROM else [order]
        futures = [
            self._embed_pool.submit(
                self._embed_slotted,
                [texts[i] for i in half],
                None if ids is None else [ids[i] for i in half],
            )
            for half in halves
        ]

        def wait() -> Vectors:
            out = np.empty((len(texts), self.embedder.dim), dtype=np.float32)
            for half, fut in zip(halves, futures, strict=True):
                out[half] = fut.result()
            return out

        return wait

    def _embed_slotted(self, texts: list[str], ids: list[list[int] | None] | None) -> Vectors:
        with self._embed_slots:
            return self.embedder.embed_many(texts, ids)

    # --- bookkeeping ---------------------------------------------------------------------

    def flush_bookkeeping(self) -> bool:
        """Write buffered access counts and analytics events, a small transaction at a
        time (service/core/bookkeeping.py), each once no acknowledged write is coming
        (traffic.py; MOST seconds at most): acknowledged writes queued meanwhile go first.
        Returns whether there was anything to write."""
        self.writable_again()  # called every few seconds: writes come back by themselves
        batch = self.bookkeeping.drain()
        if batch.empty or self.read_only:
            return False
        try:
            for job in batch.chunks():
                traffic.wait_for_writes(traffic.MOST)
                while self.write(functools.partial(_uncounted, job), durable=False):
                    traffic.wait_for_writes(traffic.MOST)
        except StorageError as exc:  # counts are not worth failing anything for
            log.warning("access counts and events dropped: %s", exc.message)
        return True


def _lull() -> None:
    """What a checkpoint waits for (store/writer.py): no acknowledged write coming, MOST
    seconds at most."""
    traffic.wait_for_writes(traffic.MOST)


def _uncounted(job: Callable[[Tx], T], tx: Tx) -> T:
    """A bookkeeping job (access counts, usage events): ranking reads what it writes, the
    keyword index and the filters do not, so remembered keyword results still hold
    (Version.value stays; Version.used moves)."""
    tx.counted = False
    return job(tx)


def _start_threads(pool: ThreadPoolExecutor, n: int) -> None:
    """Every one of `pool`'s `n` threads started now, by this thread. A pool starts a
    thread on a submit that finds none idle, and a thread is born at its creator's CPU
    priority: a hub catch-up's niced thread (niced.py) submitting first would leave the
    pool's threads, and every import's embedding after, niced for the daemon's life."""
    gate = threading.Barrier(n)
    for wait in [pool.submit(gate.wait) for _ in range(n)]:
        wait.result()

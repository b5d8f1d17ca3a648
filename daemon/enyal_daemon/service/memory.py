"""The memory engine: remember, recall, get, update, forget, restore, stats.

The one place where policy lives (scopes, dedup, scoring). It composes the
store (SQL), the index (vectors in memory, keywords in FTS5) and the embedder.
Every method is synchronous and thread-safe: the server calls them from worker
threads; reads run on per-thread connections, writes go through the one Writer.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw
import msgspec
import numpy as np

from enyal_protocol import wire as p

from ..embedder.model_files import ModelFiles
from ..embedder.onnx import Embedder, Vectors
from ..errors import InvalidValue, ModelUnavailable, NotFound
from ..index import keywords
from ..index.vectors import VectorIndex
from ..store import db, entries, meta, versions
from ..store import graph as graph_store
from ..store.writer import Tx, Writer
from . import conflicts, graph, scopes, scoring, validity
from .clock import days_between, now_iso
from .limits import check_content, check_metadata

log = logging.getLogger(__name__)

HIT_MARGIN = 3
# A filter letting more entries through than this is applied to a widened KNN (k * WIDEN
# candidates) instead of restricting the KNN to a list of every entry it allows.
EXACT_FILTER_MAX = 20_000
WIDEN = 8
PARALLEL_EMBED_FROM = 16
EMBED_CONCURRENCY = 2  # one inference per core; more only queues inside onnxruntime


@dataclass
class Filter:
    """A WHERE clause over context_entries (alias e) and how to weigh each hit."""

    where: list[str] = field(default_factory=list)
    args: list[Any] = field(default_factory=list)
    include_deprecated: bool = False
    weights: dict[tuple[str, str | None], float] | None = None  # (level, path) -> weight

    def add(self, clause: str, *args: Any) -> None:
        self.where.append(clause)
        self.args.extend(args)

    def sql(self) -> str:
        clauses = list(self.where)
        if not self.include_deprecated:
            clauses.append("e.is_deprecated = 0")
        return " AND ".join(clauses) if clauses else "1"

    def weight(self, level: str, path: str | None) -> float:
        return 1.0 if self.weights is None else self.weights.get((level, path), 0.0)


@dataclass(slots=True)
class _Scored:
    """A candidate's score and its parts, before it is worth building a full Hit."""

    score: float
    row: tuple[Any, ...]
    semantic: float
    keyword: float
    recency: float
    effective_confidence: float
    scope_weight: float
    freshness: float

    def hit(self) -> p.Hit:
        return p.Hit(
            **msgspec.structs.asdict(entries.row_to_entry(self.row)),
            score=self.score,
            semantic=self.semantic,
            keyword=self.keyword,
            recency=self.recency,
            effective_confidence=self.effective_confidence,
            scope_weight=self.scope_weight,
            freshness_score=self.freshness,
        )


class Memory:
    def __init__(self, db_path: Path, embedder: Embedder) -> None:
        self.db_path = db_path
        self.embedder = embedder
        self.index = VectorIndex(embedder.dim)
        self.doc_counts = keywords.DocCounts()
        self._local = threading.local()
        self._readers: list[apsw.Connection] = []
        self._readers_lock = threading.Lock()
        self._embed_slots = threading.BoundedSemaphore(EMBED_CONCURRENCY)
        self._embed_pool = ThreadPoolExecutor(EMBED_CONCURRENCY, thread_name_prefix="enyal-embed")
        self._keyword_pool = ThreadPoolExecutor(
            (os.cpu_count() or 2) + 2, thread_name_prefix="enyal-fts"
        )
        self._accessed: dict[str, tuple[int, str]] = {}  # id -> (times, last time)
        self._events: list[tuple[str, str, str, str | None, int | None]] = []
        self._pending_lock = threading.Lock()
        conn = db.connect(db_path, writer=True)
        try:
            self._check_model(conn, embedder.files)
        except Exception:
            conn.close()
            raise
        self.writer = Writer(conn)
        self.index.load(entries.iter_vectors(self.reader()))

    # --- plumbing ---------------------------------------------------------------

    def close(self) -> None:
        self.flush_touches()
        self.writer.close()
        self._embed_pool.shutdown()
        self._keyword_pool.shutdown()
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()

    def reader(self) -> apsw.Connection:
        conn: apsw.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = db.connect(self.db_path, writer=False)
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def embed(self, text: str) -> Vectors:
        with self._embed_slots:
            return self.embedder.embed(text)

    def embed_many(self, texts: list[str]) -> Vectors:
        """Many texts on both cores: an import is one request, but its batch is split in two
        (alternating by length, so both halves pad alike) and embedded in parallel."""
        if len(texts) < PARALLEL_EMBED_FROM:
            with self._embed_slots:
                return self.embedder.embed_many(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        halves = [order[0::2], order[1::2]]
        futures = [
            self._embed_pool.submit(self._embed_slotted, [texts[i] for i in half])
            for half in halves
        ]
        out = np.empty((len(texts), self.embedder.dim), dtype=np.float32)
        for half, fut in zip(halves, futures, strict=True):
            out[half] = fut.result()
        return out

    def _embed_slotted(self, texts: list[str]) -> Vectors:
        with self._embed_slots:
            return self.embedder.embed_many(texts)

    @staticmethod
    def _check_model(conn: apsw.Connection, files: ModelFiles) -> None:
        """The vectors in a database are only comparable with the model that made them."""
        recorded = meta.get(conn, "model_id")
        if recorded is None:
            with conn:
                meta.put(conn, "model_id", files.model_id)
                meta.put(conn, "model_dim", str(384))
                meta.put(conn, "model_sha256", files.model_sha256)
        elif recorded != files.model_id:
            raise ModelUnavailable(
                f"this database was embedded with {recorded}, but the model found is "
                f"{files.model_id}; run `enyal reindex` to re-embed it"
            )

    def _row(self, entry_id: str, conn: apsw.Connection | None = None) -> tuple[Any, ...]:
        row = entries.get_row(conn or self.reader(), entry_id)
        if row is None:
            raise NotFound(f"no entry with id {entry_id!r}")
        return row

    # --- remember -----------------------------------------------------------------

    def remember(self, params: p.RememberParams) -> p.RememberResult:
        check_content(params.content)
        check_metadata(params.metadata)
        scope_path = scopes.resolve_scope_path(params.scope, params.scope_path, params.cwd)
        digest = entries.content_hash(params.content)
        vec = self.embed(params.content)
        now = now_iso()
        entry = p.Entry(
            id=str(uuid.uuid4()),
            content=params.content,
            content_type=params.content_type,
            scope_level=params.scope,
            scope_path=scope_path,
            confidence=params.confidence,
            created_at=now,
            updated_at=now,
            accessed_at=None,
            access_count=0,
            source_type=params.source_type,
            source_ref=params.source_ref,
            tags=list(dict.fromkeys(params.tags)),
            metadata=params.metadata,
            is_deprecated=False,
            content_hash=digest,
        )

        def job(tx: Tx) -> p.RememberResult:
            # Both dedup checks run on the writer, so two racing writes cannot both miss.
            same = entries.find_by_hash(tx.conn, digest, params.scope, scope_path)
            if same is not None:
                return p.RememberResult(
                    id=same[1], action="existing", entry=entries.row_to_entry(same)
                )
            similarity: float | None = None
            similar: tuple[Any, ...] | None = None
            if params.dedup != "off":
                similar, similarity = self._nearest_in_scope(tx.conn, vec, params.scope, scope_path)
            if similar is not None and similarity is not None:
                if similarity >= params.dedup_threshold and params.dedup == "reject":
                    return p.RememberResult(
                        id=similar[1],
                        action="rejected",
                        similarity=similarity,
                        duplicate_of=similar[1],
                        entry=entries.row_to_entry(similar),
                    )
                if similarity >= params.dedup_threshold and params.dedup == "merge":
                    merged = self._replace_content(tx, similar, params.content, digest, vec, now)
                    return p.RememberResult(
                        id=merged.id,
                        action="merged",
                        similarity=similarity,
                        duplicate_of=merged.id,
                        entry=merged,
                    )
            found_conflicts, candidates = self._contradictions(tx.conn, params, scope_path, vec)
            rid = entries.insert(tx.conn, entry, vec.tobytes())
            versions.record(tx.conn, entry.id, "created", now)
            edges = graph.remember_edges(self, tx, entry.id, params, vec, now)
            tx.after_commit.append(lambda: self.index.add(rid, vec))
            dup = similar is not None and similarity is not None
            above = dup and similarity is not None and similarity >= params.dedup_threshold
            return p.RememberResult(
                id=entry.id,
                action="stored" if above else "created",
                similarity=similarity,
                duplicate_of=similar[1] if above and similar is not None else None,
                entry=entry,
                edges=edges,
                conflicts=found_conflicts,
                supersedes_candidates=candidates,
            )

        return self.writer.run(job)

    def _contradictions(
        self, conn: apsw.Connection, params: p.RememberParams, scope_path: str | None, vec: Vectors
    ) -> tuple[list[p.Related], list[p.Related]]:
        if not (params.detect_conflicts or params.suggest_supersedes):
            return [], []
        hits = self.index.search(vec, conflicts.CANDIDATES)
        rows = entries.rows_by_rid(conn, [rid for rid, _ in hits])
        similar = [(rows[rid], sim) for rid, sim in hits if rid in rows]
        return conflicts.review(
            params.content,
            params.content_type,
            (params.scope, scope_path),
            similar,
            params.detect_conflicts,
            params.suggest_supersedes,
        )

    def _nearest_in_scope(
        self, conn: apsw.Connection, vec: Vectors, level: str, path: str | None
    ) -> tuple[tuple[Any, ...] | None, float | None]:
        in_scope = [
            int(r[0])
            for r in conn.execute(
                "SELECT rid FROM context_entries WHERE scope_level = ? AND scope_path IS ? "
                "AND is_deprecated = 0",
                (level, path),
            )
        ]
        hits = self.index.search(vec, 1, only=in_scope)
        hits += self._uncommitted_similar(conn, vec, level, path)
        hits.sort(key=lambda hit: hit[1], reverse=True)
        rows = entries.rows_by_rid(conn, [rid for rid, _ in hits])
        for rid, sim in hits:
            row = rows.get(rid)
            if row is not None and row[4] == level and row[5] == path and not row[15]:
                return row, sim
        return None, None

    def _uncommitted_similar(
        self, conn: apsw.Connection, vec: Vectors, level: str, path: str | None
    ) -> list[tuple[int, float]]:
        """(rid, similarity) of the rows in this scope that earlier jobs of the same group
        commit wrote. The index changes only after a commit, so without these, near-duplicates
        racing into one batch would all pass dedup. They are the rows above the last
        committed rid, which a reader connection (outside this transaction) tells."""
        top = self.reader().execute("SELECT max(rid) FROM context_entries").fetchone()
        committed = int(top[0]) if top is not None and top[0] is not None else 0
        fresh = [
            int(r[0])
            for r in conn.execute(
                "SELECT rid FROM context_entries WHERE rid > ? AND scope_level = ? "
                "AND scope_path IS ? AND is_deprecated = 0",
                (committed, level, path),
            )
        ]
        out: list[tuple[int, float]] = []
        for rid in fresh:
            row = conn.execute(
                "SELECT embedding FROM context_vectors WHERE rowid = ?", (rid,)
            ).fetchone()
            if row is not None:
                out.append((rid, float(np.frombuffer(row[0], dtype=np.float32) @ vec)))
        return out

    def _replace_content(
        self, tx: Tx, row: tuple[Any, ...], content: str, digest: str, vec: Vectors, now: str
    ) -> p.Entry:
        rid = int(row[0])
        entries.update_fields(
            tx.conn, rid, {"content": content, "content_hash": digest, "updated_at": now}
        )
        entries.replace_vector(tx.conn, rid, vec.tobytes())
        versions.record(tx.conn, row[1], "updated", now)
        tx.after_commit.append(lambda: self.index.add(rid, vec, active=not row[15]))
        return entries.row_to_entry(self._row(row[1], tx.conn))

    # --- recall ---------------------------------------------------------------------

    def recall(self, params: p.RecallParams) -> p.RecallResult:
        f = Filter(include_deprecated=params.include_deprecated)
        if params.scope is not None:
            f.add("e.scope_level = ?", params.scope)
            path = scopes.resolve_scope_path(params.scope, params.scope_path, params.cwd)
            if params.scope != "global":
                f.add("e.scope_path = ?", path)
        elif params.scope_path is not None:
            f.add("e.scope_path = ?", scopes.absolute(params.scope_path, params.cwd))
        if params.content_type is not None:
            f.add("e.content_type = ?", params.content_type)
        v = validity.Validity(
            params.exclude_superseded, params.flag_conflicts, params.freshness_boost
        )
        if params.as_of is not None:
            hits = validity.recall_as_of(
                self,
                params.query,
                params.limit,
                params.min_confidence,
                f,
                v,
                params.content_type,
                params.tags,
                params.as_of,
            )
            return p.RecallResult(results=hits)
        for tag in params.tags:
            f.add("EXISTS (SELECT 1 FROM json_each(e.tags) WHERE value = ?)", tag)
        hits = self._search(params.query, params.limit, params.min_confidence, f, v)
        return p.RecallResult(results=hits)

    def recall_by_scope(self, params: p.RecallByScopeParams) -> p.RecallByScopeResult:
        chain = scopes.chain(params.file_path, params.cwd)
        f = Filter(weights={(level, path): w for level, path, w in chain})
        f.add(
            "(" + " OR ".join("(e.scope_level = ? AND e.scope_path IS ?)" for _ in chain) + ")",
            *[x for level, path, _ in chain for x in (level, path)],
        )
        if params.content_type is not None:
            f.add("e.content_type = ?", params.content_type)
        hits = self._search(
            params.query, params.limit, params.min_confidence, f, validity.Validity()
        )
        return p.RecallByScopeResult(
            results=hits,
            scopes=[p.ScopeRef(level=level, path=path, weight=w) for level, path, w in chain],
        )

    def _search(
        self, query: str, limit: int, min_confidence: float, f: Filter, v: validity.Validity
    ) -> list[p.Hit]:
        if "\x00" in query:
            raise InvalidValue("query must not contain NUL bytes")
        conn = self.reader()
        k = max(limit * 5, 50)
        where = f.sql()
        restricted = bool(f.where)
        # The keyword search needs no embedding: it runs on another core (and its own
        # reader connection) while this thread embeds the query.
        by_words = self._keyword_pool.submit(
            lambda: keywords.search(
                self.reader(), self.doc_counts, query, k, where if restricted else None, f.args
            )
        )
        qvec = self.embed(query)
        semantic = dict(
            self._nearest(conn, qvec, k, f)
            if restricted
            else self.index.search(qvec, k, active_only=not f.include_deprecated)
        )
        keyword = dict(by_words.result())
        missing = [rid for rid in keyword if rid not in semantic]
        semantic.update(self.index.similarity(qvec, missing))
        rows = entries.rows_by_rid(conn, semantic.keys() | keyword.keys())
        now = datetime.now(UTC)
        scored: list[_Scored] = []
        for rid, row in rows.items():
            if row[15] and not f.include_deprecated:
                continue
            age = days_between(row[8], now)
            eff = scoring.effective_confidence(row[6], row[3], age, row[10])
            if eff < min_confidence:
                continue
            weight = f.weight(row[4], row[5])
            sem, kw, rec = semantic.get(rid, 0.0), keyword.get(rid, 0.0), scoring.recency(age)
            scored.append(
                _Scored(
                    scoring.combine(sem, kw, rec, eff, weight),
                    row,
                    max(0.0, sem),
                    kw,
                    rec,
                    eff,
                    weight,
                    scoring.freshness(row[3], age),
                )
            )
        # Only the best few become full hits (decoding tags and metadata is the costly
        # part); the margin leaves room for validity to drop or re-rank some of them.
        scored.sort(key=lambda s: s.score, reverse=True)
        hits = [s.hit() for s in scored[: limit * HIT_MARGIN]]
        hits = validity.annotate(self, hits, v)[:limit]
        self._touch(h.id for h in hits)
        for rank, h in enumerate(hits, 1):
            self.record_event(h.id, "recall", query, rank)
        return hits

    def _nearest(
        self, conn: apsw.Connection, qvec: Vectors, k: int, f: Filter
    ) -> list[tuple[int, float]]:
        """KNN among the entries a filter allows. A selective filter (a project, a tag) is
        searched exactly over its rows; one that lets most of a big store through (global
        entries in a store of mostly global ones) would cost more to list than to scan,
        so the whole index is searched wider and the candidates are filtered instead."""
        # Without the deprecated clause: it costs a table lookup per row, and the index
        # already knows which rows are deprecated (active_only).
        where = " AND ".join(f.where)
        allowed = [
            int(r[0])
            for r in conn.execute(
                f"SELECT e.rid FROM context_entries e WHERE {where} LIMIT ?",
                (*f.args, EXACT_FILTER_MAX + 1),
            )
        ]
        active_only = not f.include_deprecated
        if len(allowed) <= EXACT_FILTER_MAX:
            return self.index.search(qvec, k, only=allowed, active_only=active_only)
        wide = self.index.search(qvec, k * WIDEN, active_only=active_only)
        rids = [rid for rid, _ in wide]
        passing = (
            {
                int(r[0])
                for r in conn.execute(
                    f"SELECT e.rid FROM context_entries e WHERE {where} "
                    f"AND e.rid IN ({','.join('?' * len(rids))})",
                    (*f.args, *rids),
                )
            }
            if rids
            else set()
        )
        return [(rid, sim) for rid, sim in wide if rid in passing][:k]

    def _touch(self, ids: Iterable[str]) -> None:
        """Access bookkeeping is batched: it is not an acknowledged write, so a crash may
        lose a few seconds of access counts but never a memory. Keyed by entry id, not
        rid: a rid freed by a hard delete can be handed to the next insert."""
        now = now_iso()
        with self._pending_lock:
            for entry_id in ids:
                count, _ = self._accessed.get(entry_id, (0, now))
                self._accessed[entry_id] = (count + 1, now)

    def record_event(
        self, entry_id: str, event_type: str, query: str | None = None, rank: int | None = None
    ) -> None:
        """Usage analytics, off the request path: buffered like access counts."""
        with self._pending_lock:
            self._events.append((entry_id, event_type, now_iso(), query, rank))

    def flush_touches(self) -> None:
        """Write buffered access counts and analytics events in one transaction."""
        with self._pending_lock:
            accessed, self._accessed = self._accessed, {}
            events, self._events = self._events, []
        if not accessed and not events:
            return

        def job(tx: Tx) -> None:
            entries.touch(tx.conn, [(i, n, when) for i, (n, when) in accessed.items()])
            # An entry deleted since the event was recorded takes its events with it.
            tx.conn.executemany(
                "INSERT INTO context_analytics (entry_id, event_type, event_at, query, "
                "result_rank) SELECT ?, ?, ?, ?, ? WHERE EXISTS "
                "(SELECT 1 FROM context_entries WHERE id = ?)",
                [(*e, e[0]) for e in events],
            )

        self.writer.run(job)

    # --- single entries --------------------------------------------------------------

    def get(self, params: p.GetParams) -> p.Entry:
        return entries.row_to_entry(self._row(params.id))

    def update(self, params: p.UpdateParams) -> p.Entry:
        fields: dict[str, Any] = {}
        vec: Vectors | None = None
        if params.content is not None:
            check_content(params.content)
            vec = self.embed(params.content)
            fields["content"] = params.content
            fields["content_hash"] = entries.content_hash(params.content)
        if params.content_type is not None:
            fields["content_type"] = params.content_type
        if params.confidence is not None:
            fields["confidence"] = params.confidence
        if params.tags is not None:
            fields["tags"] = msgspec.json.encode(list(dict.fromkeys(params.tags))).decode()
        if params.metadata is not None:
            check_metadata(params.metadata)
            fields["metadata"] = msgspec.json.encode(params.metadata).decode()
        if not fields:
            raise InvalidValue(
                "nothing to update: give content, content_type, confidence, tags or metadata"
            )
        fields["updated_at"] = now_iso()

        def job(tx: Tx) -> p.Entry:
            row = self._row(params.id, tx.conn)
            rid = int(row[0])
            entries.update_fields(tx.conn, rid, fields)
            versions.record(tx.conn, params.id, "updated", fields["updated_at"])
            if vec is not None:
                entries.replace_vector(tx.conn, rid, vec.tobytes())
                tx.after_commit.append(lambda: self.index.add(rid, vec, active=not row[15]))
            return entries.row_to_entry(self._row(params.id, tx.conn))

        entry = self.writer.run(job)
        self.record_event(entry.id, "update")
        return entry

    def forget(self, params: p.ForgetParams) -> p.ForgetResult:
        def job(tx: Tx) -> p.ForgetResult:
            row = self._row(params.id, tx.conn)
            rid = int(row[0])
            if params.hard:
                entries.delete(tx.conn, rid)  # edges, versions, events go by ON DELETE CASCADE
                tx.after_commit.append(lambda: self.index.remove(rid))
                return p.ForgetResult(id=params.id, action="deleted")
            if not row[15]:
                entries.update_fields(tx.conn, rid, {"is_deprecated": 1})
                versions.record(tx.conn, params.id, "forgotten", now_iso())
            tx.after_commit.append(lambda: self.index.set_active(rid, False))
            return p.ForgetResult(id=params.id, action="deprecated")

        return self.writer.run(job)

    def restore(self, params: p.RestoreParams) -> p.Entry:
        """Un-forget an entry; or, with `version`, bring back that version's content and
        fields as a new version (history is never rewritten)."""
        target: p.Version | None = None
        vec: Vectors | None = None
        if params.version is not None:
            target = versions.get(self.reader(), params.id, params.version)
            if target is None:
                self._row(params.id)  # NotFound for an unknown entry first
                raise NotFound(f"entry {params.id} has no version {params.version}")
            vec = self.embed(target.content)

        def job(tx: Tx) -> p.Entry:
            row = self._row(params.id, tx.conn)
            rid = int(row[0])
            now = now_iso()
            if target is None:
                if row[15]:
                    entries.update_fields(tx.conn, rid, {"is_deprecated": 0})
                    versions.record(tx.conn, params.id, "restored", now)
                tx.after_commit.append(lambda: self.index.set_active(rid, True))
            else:
                assert vec is not None
                entries.update_fields(
                    tx.conn,
                    rid,
                    {
                        "content": target.content,
                        "content_hash": entries.content_hash(target.content),
                        "content_type": target.content_type,
                        "confidence": target.confidence,
                        "tags": msgspec.json.encode(target.tags).decode(),
                        "metadata": msgspec.json.encode(target.metadata).decode(),
                        "is_deprecated": int(target.is_deprecated),
                        "updated_at": now,
                    },
                )
                entries.replace_vector(tx.conn, rid, vec.tobytes())
                versions.record(tx.conn, params.id, "reverted", now)
                active = not target.is_deprecated
                tx.after_commit.append(lambda: self.index.add(rid, vec, active=active))
            return entries.row_to_entry(self._row(params.id, tx.conn))

        return self.writer.run(job)

    # --- stats ---------------------------------------------------------------------------

    def stats(self, params: p.StatsParams | None = None) -> p.Stats:
        conn = self.reader()
        row = conn.execute(
            "SELECT count(*), coalesce(sum(is_deprecated = 0), 0), min(created_at), "
            "max(created_at) FROM context_entries"
        ).fetchone()
        assert row is not None  # an aggregate always returns a row
        total, active, oldest, newest = row
        by_type: dict[str, int] = dict.fromkeys(p.CONTENT_TYPES, 0)
        by_type.update(
            conn.execute(
                "SELECT content_type, count(*) FROM context_entries WHERE is_deprecated = 0 "
                "GROUP BY content_type"
            )
        )
        by_scope: dict[str, int] = dict.fromkeys(p.SCOPE_LEVELS, 0)
        by_scope.update(
            conn.execute(
                "SELECT scope_level, count(*) FROM context_entries WHERE is_deprecated = 0 "
                "GROUP BY scope_level"
            )
        )
        confidence = {"high (>=0.7)": 0, "medium (0.3-0.7)": 0, "low (<0.3)": 0}
        for band, n in conn.execute(
            "SELECT CASE WHEN confidence >= 0.7 THEN 'high (>=0.7)' "
            "WHEN confidence >= 0.3 THEN 'medium (0.3-0.7)' ELSE 'low (<0.3)' END, count(*) "
            "FROM context_entries WHERE is_deprecated = 0 GROUP BY 1"
        ):
            confidence[band] = n
        size = sum(
            f.stat().st_size
            for f in (self.db_path, self.db_path.with_name(self.db_path.name + "-wal"))
            if f.exists()
        )
        edges, edges_by_type, connected = graph_store.counts(conn)
        return p.Stats(
            total_edges=edges,
            edges_by_type=edges_by_type,
            connected_entries=connected,
            total=total,
            active=active,
            deprecated=total - active,
            by_type=by_type,
            by_scope=by_scope,
            confidence=confidence,
            db_bytes=size,
            oldest=oldest,
            newest=newest,
        )

    def count(self) -> int:
        return entries.count(self.reader())

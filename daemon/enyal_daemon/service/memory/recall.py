"""Recall: the entries that best answer a query, now or as of a past moment.

Candidates come from two searches run side by side: the query's words in FTS5 on
this thread while an embedding worker embeds the query, then its meaning in the
vector index. Each
candidate then has both similarities; ranking.rank scores them all at once, and
validity.annotate drops or re-ranks the superseded and the conflicting.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from datetime import datetime, timedelta

import apsw
import numpy as np

from enyal_protocol import wire as p

from ...embedder.onnx import Vectors
from ...errors import InvalidValue
from ...index.groups import kind_code
from ...index.vectors import Int64s
from ...store import entries, versions
from ...store.filters import EntryFilter
from ...store.rows import EntryRow
from ..core.engine import Engine
from ..files import sources
from ..rules import ranking, scopes
from ..rules.clock import parse_iso, to_iso
from ..rules.ranking import HIT_MARGIN, Candidate, Floors, Weight, rank
from ..rules.scoring import ELSEWHERE
from . import budget, validity
from .for_session import shown_to

# A filter letting more entries through than this is applied to a widened KNN (k * WIDEN
# candidates) instead of restricting the KNN to a list of every entry it allows.
EXACT_FILTER_MAX = 20_000
WIDEN = 8


def _unweighted(level: str, path: str | None) -> float:
    return 1.0


def _weight(engine: Engine, params: p.RecallParams | p.RecallBatchParams) -> Weight:
    """Every project asked for from a cwd: what the cwd sees at full weight, another
    project's memories at ELSEWHERE; otherwise everything found counts alike."""
    if params.scope != "all" or params.cwd is None:
        return _unweighted
    view = scopes.view_from(params.cwd, engine.groups)
    return lambda level, path: 1.0 if view.sees(path) else ELSEWHERE


# The query embedding a request thread started before its verb ran (embed_early), for
# _gather to pick up: (engine, query, vector to come).
_early = threading.local()


def embed_early(engine: Engine, params: p.RecallParams | p.RecallByScopeParams) -> None:
    """Start embedding the query before the work every verb does first (the cwd's project,
    the expiry sweep) and this one's filter, so that the embedding, the longest part of a
    recall, runs on its worker meanwhile rather than after them (issue 30). A query the
    verb will refuse, or an as-of recall (which embeds its own way), starts nothing."""
    if isinstance(params, p.RecallParams) and params.as_of is not None:
        return
    if "\x00" in params.query:
        return
    _early.pending = (engine, params.query, engine.embed_query_soon(params.query))


def _embedding_started(engine: Engine, query: str) -> Future[Vectors] | None:
    """The vector embed_early started on this thread for this query, if it did (taken once)."""
    pending = getattr(_early, "pending", None)
    _early.pending = None
    if pending is None or pending[0] is not engine or pending[1] != query:
        return None
    future: Future[Vectors] = pending[2]
    return future


def recall(engine: Engine, params: p.RecallParams) -> p.RecallResult:
    v = validity.Validity(params.exclude_superseded, params.flag_conflicts, params.freshness_boost)
    if params.as_of is not None and params.asked_at is not None:
        raise InvalidValue(
            "as_of and asked_at cannot be combined: as_of already asks at that moment"
        )
    at = None if params.asked_at is None else _asked_at(params.asked_at)
    f = _filter(engine, params, at)
    if params.as_of is not None:
        hits = _fitting(_recall_as_of(engine, params, f, v), params.drop_weak_only)
        hits, packed = _pack(engine, hits, params.budget_tokens)
    else:
        weight = _weight(engine, params)
        hits = _search(
            engine, params.query, params.limit, _floors(params), f, v, weight=weight, at=at
        )
        hits = _fitting(hits, params.drop_weak_only)
        hits, packed = _pack(engine, hits, params.budget_tokens)
        _used(engine, params.query, hits, at)
    hits = shown_to(engine, hits, params.lines_about, params.session_id)
    return p.RecallResult(results=hits, budget=packed)


def _fitting(hits: list[p.Hit], drop_weak_only: bool) -> list[p.Hit]:
    """No hits when asked to drop a list of weak ones only (nothing fits the query). Before
    the budget and the session's record, so what is dropped is neither packed nor counted
    as used or shown."""
    return [] if drop_weak_only and all(h.weak for h in hits) else hits


def _pack(
    engine: Engine, hits: list[p.Hit], budget_tokens: int | None
) -> tuple[list[p.Hit], p.Budget | None]:
    if budget_tokens is None:
        return hits, None
    return budget.pack(engine, hits, budget_tokens)


def recall_batch(engine: Engine, params: p.RecallBatchParams) -> p.RecallBatchResult:
    """Each query as `recall` would answer it, their embeddings computed in one batch."""
    for query in params.queries:
        _check_query(query)
    at = None if params.asked_at is None else _asked_at(params.asked_at)
    f = _filter(engine, params, at)
    qvecs = engine.embed_many([engine.embedder.query_window(q) for q in params.queries])
    floors, weight = _floors(params), _weight(engine, params)
    out = []
    for query, qvec in zip(params.queries, qvecs, strict=True):
        hits = _search(
            engine, query, params.limit, floors, f, validity.Validity(), qvec, weight, at=at
        )
        _used(engine, query, hits, at)
        out.append(p.RecallResult(results=hits))
    return p.RecallBatchResult(results=out)


def _asked_at(text: str) -> datetime:
    """A date alone means the end of that day, as for as_of."""
    return parse_iso(validity.as_of_instant(text, "asked_at"))


def _filter(
    engine: Engine,
    params: p.RecallParams | p.RecallBatchParams,
    asked_at: datetime | None = None,
) -> EntryFilter:
    level = None if params.scope == "all" else params.scope
    path, match_path = scopes.filter_path(level, params.scope_path, params.cwd)
    as_of = isinstance(params, p.RecallParams) and params.as_of is not None
    # Asked for no scope, an agent sees what its cwd sees: another project's memories only
    # with scope "all" (or without a cwd, as a bare client that names no place).
    seen = params.scope is None and params.scope_path is None and params.cwd is not None
    return EntryFilter(
        scope_level=level,
        scope_path=path,
        match_path=match_path,
        view=(
            scopes.view_from(params.cwd, engine.groups) if seen and params.cwd is not None else None
        ),
        # As-of recall checks type and tags against the version of then, not today's.
        content_type=None if as_of else params.content_type,
        tags=() if as_of else tuple(params.tags),
        min_importance=params.min_importance,
        metadata=tuple(params.where.items()),
        # Asked at a past moment, what was said later was not there to be found.
        created_before=None if asked_at is None else to_iso(asked_at + timedelta(microseconds=1)),
        include_deprecated=isinstance(params, p.RecallParams) and params.include_deprecated,
        include_quarantined=isinstance(params, p.RecallParams) and params.include_quarantined,
        include_done=(isinstance(params, p.RecallParams) and params.include_done)
        or params.content_type == "task",
    )


def recall_by_scope(engine: Engine, params: p.RecallByScopeParams) -> p.RecallByScopeResult:
    chain = scopes.chain(params.file_path, params.cwd)
    weights: dict[tuple[str, str | None], float] = {(lv, path): w for lv, path, w in chain}
    f = EntryFilter(
        scopes=tuple((level, path) for level, path, _ in chain),
        content_type=params.content_type,
        min_importance=params.min_importance,
        include_done=params.content_type == "task",
    )
    hits = _search(
        engine,
        params.query,
        params.limit,
        _floors(params),
        f,
        validity.Validity(),
        weight=lambda level, path: weights.get((level, path), 0.0),
    )
    hits, packed = _pack(engine, hits, params.budget_tokens)
    _used(engine, params.query, hits)
    hits = shown_to(engine, hits, params.lines_about, params.session_id)
    return p.RecallByScopeResult(
        results=hits,
        scopes=[p.ScopeRef(level=level, path=path, weight=w) for level, path, w in chain],
        budget=packed,
    )


def _floors(params: p.RecallParams | p.RecallByScopeParams | p.RecallBatchParams) -> Floors:
    return Floors(params.min_confidence, params.min_relevance, params.min_relative)


def _check_query(query: str) -> None:
    if "\x00" in query:
        raise InvalidValue("query must not contain NUL bytes")


def _search(
    engine: Engine,
    query: str,
    limit: int,
    floors: Floors,
    f: EntryFilter,
    v: validity.Validity,
    qvec: Vectors | None = None,
    weight: Weight = _unweighted,
    at: datetime | None = None,
) -> list[p.Hit]:
    """`at`: when the query is asked (recall's asked_at; the filter then holds only what
    was created by then); recency and freshness are measured from it."""
    _check_query(query)
    candidates = _gather(engine, query, max(limit * 5, 50), f, qvec)
    now = at or engine.clock.now()
    keep = limit * HIT_MARGIN
    written = _last_write(engine, at)
    ranked = rank(candidates, now, floors, weight, keep, engine.decay_rates, query, written=written)
    ranked = validity.annotate(engine, ranked, v, as_of=None if at is None else to_iso(at))
    hits = ranking.hits(ranked[:limit])
    sources.annotate(engine, hits)
    return hits


def ranking_inputs(
    engine: Engine, params: p.RecallParams
) -> tuple[list[Candidate], datetime, datetime | None]:
    """The candidates recall ranks for `params` (current recall, not as-of), the moment it
    ranks them at and the store's last write by then (`_last_write`): what
    scripts/train_fusion reads features of (ranking.parts, ranking.features)."""
    _check_query(params.query)
    at = None if params.asked_at is None else _asked_at(params.asked_at)
    found = _gather(engine, params.query, max(params.limit * 5, 50), _filter(engine, params, at))
    return found, at or engine.clock.now(), _last_write(engine, at)


def _last_write(engine: Engine, at: datetime | None) -> datetime | None:
    """When the store was last written by `at` (None: by now): recency counts to it
    (scoring.recency). Remembered while nothing is written (Engine._unwritten); two
    index seeks when it is not."""

    def read() -> str | None:
        return entries.last_write(engine.reader(), None if at is None else to_iso(at))

    stamp = engine.last_writes.get(at, read)
    return None if stamp is None else parse_iso(stamp)


def _gather(
    engine: Engine, query: str, k: int, f: EntryFilter, qvec: Vectors | None = None
) -> list[Candidate]:
    """The k nearest in meaning and the k best in words, each with both similarities."""
    conn = engine.reader()
    # The query is embedded on an embedding worker while its words are searched here.
    meaning = None
    if qvec is None:
        meaning = _embedding_started(engine, query) or engine.embed_query_soon(query)
    keyword = dict(engine.keyword_results.search(conn, engine.doc_counts, query, k, f))
    # The words' rows too, while the query is still being embedded (a claim of SciFact's
    # takes ~2 ms longer to embed than its words to search): off the recall's way.
    rows = entries.by_rids(conn, keyword)
    if meaning is not None:
        qvec = meaning.result()
    assert qvec is not None
    # Long memories are also searched by their passages (embedder/passages.py): an
    # entry's similarity is the best of its whole text's and its passages'.
    semantic = dict(
        _nearest(engine, conn, qvec, k, f, passages=True)
        if f.restricts
        else engine.index.search(qvec, k, active_only=not f.include_deprecated, passages=True)
    )
    semantic.update(
        engine.index.similarity(qvec, [r for r in keyword if r not in semantic], passages=True)
    )
    rows.update(entries.by_rids(conn, [rid for rid in semantic if rid not in keyword]))
    # In rid order, as one read of them all gives them (ties in the ranking keep it).
    return _candidates(engine, dict(sorted(rows.items())), semantic, keyword, f)


def _candidates(
    engine: Engine,
    rows: dict[int, EntryRow],
    semantic: dict[int, float],
    keyword: dict[int, float],
    f: EntryFilter,
) -> list[Candidate]:
    kept = [
        row
        for row in rows.values()
        if (f.include_deprecated or not row.is_deprecated)
        and (f.include_quarantined or not row.quarantined)
        and (f.include_done or row.status != "done")
    ]
    # What each similarity was lowered by for its passages: the floors read it back.
    chance = engine.index.chance(np.array([row.rid for row in kept], dtype=np.int64)).tolist()
    return [
        Candidate(row, semantic.get(row.rid, 0.0), keyword.get(row.rid, 0.0), chance=lowered)
        for row, lowered in zip(kept, chance, strict=True)
    ]


def _used(engine: Engine, query: str, hits: list[p.Hit], asked_at: datetime | None = None) -> None:
    """Count the hits an agent was shown (a budget may have left some out) as used.
    Recall asked at a past moment replays it and counts nothing: a replayed conversation
    must not lift what it found (the use bonus) for the questions replayed after it."""
    if asked_at is not None:
        return
    engine.bookkeeping.touch(h.id for h in hits)
    if hits:  # a query can hold a secret too: the analytics log keeps it redacted
        engine.bookkeeping.recalled([h.id for h in hits], query)


def _nearest(
    engine: Engine,
    conn: apsw.Connection,
    qvec: Vectors,
    k: int,
    f: EntryFilter,
    active_only: bool | None = None,
    passages: bool = False,
) -> list[tuple[int, float]]:
    """KNN among the entries a filter allows. A selective filter (a project, a tag) is
    searched exactly over its rows; one that lets most of a big store through (global
    entries in a store of mostly global ones) would cost more to list than to scan,
    so the whole index is searched wider and the candidates are filtered instead. If
    fewer than k of those pass (a broad filter whose entries lie far from this query),
    every entry it allows is listed and searched after all: a filter never starves
    the results."""
    if active_only is None:
        active_only = not f.include_deprecated
    masked = _index_mask(engine, f)
    if masked is not None:
        groups, kinds = masked
        held = _holding(engine, conn, f)
        if held is None or len(held) <= EXACT_FILTER_MAX:
            return engine.index.search(
                qvec,
                k,
                only=held,
                groups=groups,
                kinds=kinds,
                active_only=active_only,
                passages=passages,
            )
    allowed = entries.filtered_rids(conn, f, EXACT_FILTER_MAX + 1)
    if len(allowed) <= EXACT_FILTER_MAX:
        return engine.index.search(
            qvec, k, only=allowed, active_only=active_only, passages=passages
        )
    wide = engine.index.search(qvec, k * WIDEN, active_only=active_only, passages=passages)
    ok = entries.passing(conn, f, [rid for rid, _ in wide])
    near = [(rid, sim) for rid, sim in wide if rid in ok]
    if len(near) >= k or len(wide) < k * WIDEN:  # enough, or the wide search saw every row
        return near[:k]
    everything = entries.filtered_rids(conn, f, None)
    return engine.index.search(qvec, k, only=everything, active_only=active_only, passages=passages)


def _holding(engine: Engine, conn: apsw.Connection, f: EntryFilter) -> Int64s | None:
    """The rids holding the filter's tags and metadata pairs (up to EXACT_FILTER_MAX + 1
    of them), None if it names none. Remembered while no memory changes (the store's
    version: a write, a tag change, a forgetting, a sync all move it): listing a tag's
    10,000 rids at 100k takes 1.2 ms, asked again nothing. Not kept for a store this
    daemon cannot write: another process may (Engine._unwritten)."""
    if not f.sets:
        return None

    def listed() -> Int64s:
        rids = np.array(entries.holding(conn, f, EXACT_FILTER_MAX + 1), dtype=np.int64)
        rids.flags.writeable = False  # shared by the recalls that find it remembered
        return rids

    return engine.held_rids.get(tuple(f.sets), listed)


def _index_mask(engine: Engine, f: EntryFilter) -> tuple[list[int] | None, list[int] | None] | None:
    """The index groups and kinds a filter of scopes, a type, tags and metadata allows
    (None for either: any); None when it filters by more, which only SQL can check. Its
    tags and metadata are not masks of the index but rids listed apart (`_holding`), so
    that a tag asked from a project's view is not checked entry by entry in SQL (8.5 ms
    at 100k, most of such a recall's cost)."""
    if f.min_importance > 1 or len(f.clauses) > _mask_clauses(f) + len(f.sets):
        return None
    kinds = None if f.content_type is None else [kind_code(f.content_type)]
    if f.view is not None:
        return engine.groups.matching(f.view.sees, f.view), kinds
    if f.scopes:
        return engine.groups.known(f.scopes), kinds
    if f.scope_level is not None:
        return engine.groups.known([(f.scope_level, f.scope_path if f.match_path else None)]), kinds
    if f.match_path:
        return engine.groups.at_path(f.scope_path), kinds
    return None if kinds is None and not f.sets else (None, kinds)


def _mask_clauses(f: EntryFilter) -> int:
    """How many of the filter's clauses the index's masks stand for."""
    if f.view is not None:  # a view comes alone: the other scope fields are unset then
        return 1 + int(f.content_type is not None)
    scope = 1 if f.scopes else int(f.scope_level is not None) + int(f.match_path)
    return scope + int(f.content_type is not None)


# --- as of a past moment -------------------------------------------------------------------


def _recall_as_of(
    engine: Engine, params: p.RecallParams, f: EntryFilter, v: validity.Validity
) -> list[p.Hit]:
    """What was believed at `as_of`: entries that existed then, not forgotten and (unless
    asked) not superseded then, with their content, type, tags and confidence of then.

    Candidates are the entries nearest the query by today's vectors (forgotten ones
    included: they may have been live then) plus every entry whose content has changed
    since, whose old text is embedded again: an entry unchanged since then and far from
    the query today was as far then. Ranked by meaning and recency as of then; the
    keyword part is 0 here because the text index holds only current contents, and
    meaning is the whole texts' only (no passages), because old texts are embedded
    whole and their scores must compare with the others'. Entries deleted for good are
    gone from history.
    """
    _check_query(params.query)
    when = validity.as_of_instant(params.as_of or "")
    conn = engine.reader()
    qvec = engine.embed_query(params.query)
    k = max(params.limit * 5, 50) * WIDEN
    near = (
        _nearest(engine, conn, qvec, k, f, active_only=False)
        if f.restricts
        else engine.index.search(qvec, k, active_only=False)
    )
    rows = entries.by_rids(conn, [rid for rid, _ in near])
    changed_ids = versions.content_changed_since(conn, when)
    rows.update({r.rid: r for r in entries.by_ids(conn, changed_ids).values()})
    if f.restricts and changed_ids:
        allowed = entries.passing(conn, f, list(rows))
        rows = {rid: row for rid, row in rows.items() if rid in allowed}
    by_id = {row.id: row for row in rows.values()}
    states = [
        (by_id[entry_id], then)
        for entry_id, then in versions.states_at(conn, when, list(by_id))
        if (f.include_deprecated or not then.is_deprecated)
        and (f.include_quarantined or not by_id[entry_id].quarantined)
        and (params.content_type is None or then.content_type == params.content_type)
        and (f.include_done or then.status != "done")
        and set(params.tags) <= set(then.tags)
    ]
    if not states:
        return []
    sims = engine.index.similarity(
        qvec, [row.rid for row, then in states if then.content == row.content]
    )
    changed = [(row, then) for row, then in states if then.content != row.content]
    if changed:
        old_vecs = engine.embed_many([then.content for _, then in changed])
        for (row, _), sim in zip(changed, old_vecs @ qvec, strict=True):
            sims[row.rid] = float(sim)
    candidates = [Candidate(row, sims.get(row.rid, 0.0), then=then) for row, then in states]
    keep = params.limit * HIT_MARGIN
    ranked = rank(
        candidates,
        parse_iso(when),
        _floors(params),
        _weight(engine, params),
        keep,
        engine.decay_rates,
        params.query,
        written=_last_write(engine, parse_iso(when)),
    )
    hits = ranking.hits(validity.annotate(engine, ranked, v, as_of=when)[: params.limit])
    sources.annotate(engine, hits)
    return hits

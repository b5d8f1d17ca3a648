"""`consolidate`: near-duplicate memories merged into one, expired ones removed.

Finding runs on a reader, outside the writer, since it is the slow part: every active
candidate, best first (importance, then confidence, then use, then the newest), takes
as its cluster the not yet taken entries of its own scope at least `threshold` similar
to it (the vector index, searched as remember's dedup searches it). So every cluster is
a star around its survivor, and the survivor is the best of its cluster: a better
entry that close would have taken it first.

Applying is one writer job, so a crash leaves all of it or none: each cluster is
checked again (an entry changed or forgotten since is left out), the survivor gets
the union of the tags and metadata (its own values win), the highest importance and
confidence and the sum of the access counts, every edge of a merged entry moves to the
survivor, and the merged entry is deprecated under a `supersedes` edge from the survivor
that remembers the moved edges. `restore` of a merged entry undoes its merge (unmerge).
A dry run rehearses exactly that in a savepoint and rolls it back.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import apsw
import msgspec
import numpy as np

from enyal_protocol import wire as p

from ...store import entries, sources, versions
from ...store import graph as edges
from ...store.filters import EntryFilter
from ...store.rows import EntryRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import scopes
from ..rules.clock import days_between
from ..rules.limits import MAX_METADATA_BYTES
from ..rules.scoring import effective_confidence
from .dedup import neighbours_in_scope

# Neighbours looked at per candidate: a cluster holds at most this many duplicates per
# run (a second run picks up the rest).
NEIGHBOURS = 32


@dataclass(frozen=True)
class Plan:
    survivor: EntryRow
    members: list[tuple[EntryRow, float]]  # (entry, similarity to the survivor)


class _Rehearsed(Exception):
    """Raised out of a dry run's savepoint to roll it back, carrying its result."""

    def __init__(self, result: p.ConsolidateResult) -> None:
        super().__init__("dry run")
        self.result = result


def _rank(row: EntryRow) -> tuple[int, float, int, str, int]:
    return row.importance, row.confidence, row.access_count, row.created_at, row.rid


def consolidate(engine: Engine, params: p.ConsolidateParams) -> p.ConsolidateResult:
    path, match_path = scopes.filter_path(params.scope, params.scope_path, params.cwd)
    f = EntryFilter(
        scope_level=params.scope,
        scope_path=path,
        match_path=match_path,
        content_type=params.content_type,
        # A task is not a duplicate of a similar one (two steps of a job read alike), and
        # one day's log is not another's: neither is merged or forgotten as stale.
        exclude_types=("task", "log"),
    )
    now = engine.clock.now_iso()
    plans = find(engine, engine.reader(), f, params.threshold, params.limit, now)
    stale = _stale(engine, engine.reader(), f, params.stale_below, params.stale_days)

    def job(tx: Tx) -> p.ConsolidateResult:
        hooks = len(tx.after_commit)
        try:
            with tx.conn:  # a savepoint of its own, which a dry run rolls back
                result = _apply(engine, tx, plans, stale, now, params.dry_run)
                if params.dry_run:
                    raise _Rehearsed(result)
        except _Rehearsed as rehearsed:
            del tx.after_commit[hooks:]  # nothing was committed, so the index must not change
            return rehearsed.result
        return result

    return engine.write(job)


def find(
    engine: Engine, conn: apsw.Connection, f: EntryFilter, threshold: float, limit: int, now: str
) -> list[Plan]:
    """Up to `limit` clusters of duplicates among the active entries `f` lets through."""
    rows = [r for r in entries.filtered(conn, f) if r.expires_at is None or r.expires_at > now]
    # A superseded entry is history, not a duplicate: merging it would re-point the edge
    # that supersedes it onto its survivor.
    superseded = edges.superseded_by(conn, [r.id for r in rows])
    # A mirror of an indexed file changes only with its file: never merged either way.
    mirrors = sources.mirror_rids(conn)
    by_rid = {r.rid: r for r in rows if r.id not in superseded and r.rid not in mirrors}
    vectors = {
        rid: np.frombuffer(blob, dtype=np.float32)
        for rid, blob in entries.vectors(conn, list(by_rid)).items()
    }
    taken: set[int] = set()
    plans: list[Plan] = []
    for seed in sorted(by_rid.values(), key=_rank, reverse=True):
        if len(plans) >= limit:
            break
        if seed.rid in taken or seed.rid not in vectors:
            continue
        taken.add(seed.rid)
        vec = vectors[seed.rid]
        members = []
        for rid, _ in neighbours_in_scope(engine, vec, *seed.scope, NEIGHBOURS + 1):
            if rid in taken or rid not in by_rid or rid not in vectors:
                continue
            similarity = float(vec @ vectors[rid])  # exact: the index's codes are int8
            if similarity >= threshold:
                members.append((by_rid[rid], similarity))
        if members:
            taken.update(row.rid for row, _ in members)
            plans.append(Plan(seed, members))
    return plans


def _current(conn: apsw.Connection, planned: EntryRow) -> EntryRow | None:
    """The entry as it is now, if it is still what was planned on: active, same content."""
    row = entries.get(conn, planned.id)
    if row is None or row.is_deprecated or row.content_hash != planned.content_hash:
        return None
    return row


def _stale(
    engine: Engine, conn: apsw.Connection, f: EntryFilter, floor: float, days: int
) -> list[EntryRow]:
    """Active entries decayed below `floor` that nobody used (read, recalled, confirmed,
    updated) for `days`: what a person would clear out of their notes."""
    if floor <= 0:
        return []
    now = engine.clock.now()
    out = []
    mirrors = sources.mirror_rids(conn)  # there while their section is: the file decides
    for row in entries.filtered(conn, f):
        if row.rid in mirrors:
            continue
        last_use = max(filter(None, (row.accessed_at, row.checked_at)))
        if days_between(last_use, now) < days:
            continue
        age = days_between(row.checked_at, now)
        rates = engine.decay_rates
        if (
            effective_confidence(row.confidence, row.content_type, age, row.access_count, rates)
            < floor
        ):
            out.append(row)
    return out


def _forget_stale(engine: Engine, tx: Tx, stale: list[EntryRow], now: str) -> list[str]:
    forgotten = []
    for planned in stale:
        row = _current(tx.conn, planned)
        if row is None or row.accessed_at != planned.accessed_at:
            continue  # merged, forgotten, changed or used since it was found
        engine.deprecate(tx, row, now)
        forgotten.append(row.id)
    return forgotten


def _apply(
    engine: Engine, tx: Tx, plans: list[Plan], stale: list[EntryRow], now: str, dry_run: bool
) -> p.ConsolidateResult:
    removed = engine.sweep_on(tx, now)
    clusters: list[p.Cluster] = []
    moved = 0
    for plan in plans:
        survivor = _current(tx.conn, plan.survivor)
        if survivor is None:
            continue
        members = [
            (row, sim) for planned, sim in plan.members if (row := _current(tx.conn, planned))
        ]
        if not members:
            continue
        moved += merge(engine, tx, survivor, [row for row, _ in members], now)
        clusters.append(
            p.Cluster(
                survivor=survivor.id,
                merged=[row.id for row, _ in members],
                similarity_min=round(min(sim for _, sim in members), 4),
            )
        )
    return p.ConsolidateResult(
        dry_run=dry_run,
        clusters=clusters,
        merged=sum(len(c.merged) for c in clusters),
        edges_repointed=moved,
        expired_removed=removed,
        stale_forgotten=_forget_stale(engine, tx, stale, now),
    )


def merge(engine: Engine, tx: Tx, survivor: EntryRow, members: list[EntryRow], now: str) -> int:
    """Merge `members` (best first) into `survivor`; returns the edges moved to it."""
    everyone = [survivor, *members]
    # Within what `update` accepts, or the merged entry could not be edited again: the
    # survivor's tags and metadata come first, the better members' next.
    tags = list(dict.fromkeys(tag for row in everyone for tag in row.tags()))[: p.MAX_TAGS]
    metadata: dict[str, Any] = {}
    for row in reversed(everyone):  # the survivor's values win, then the better members'
        metadata.update(row.metadata())
    if len(msgspec.json.encode(metadata)) > MAX_METADATA_BYTES:
        metadata = survivor.metadata()
    accessed = [row.accessed_at for row in everyone if row.accessed_at is not None]
    # updated_at stays: a duplicate found is no news that the memory still holds, so its
    # decay clock goes on (confirm restarts it).
    fields: dict[str, Any] = {
        "tags": tags,
        "metadata": metadata,
        "importance": max(row.importance for row in everyone),
        "confidence": max(row.confidence for row in everyone),
        "access_count": sum(row.access_count for row in everyone),
        "accessed_at": max(accessed) if accessed else None,
    }
    entries.update_fields(tx.conn, survivor.rid, fields)
    had = {row.id: edges.touching(tx.conn, [row.id], "both") for row in members}
    # Edges inside the cluster would all become loops: gone before any is moved.
    edges.drop_between(tx.conn, [row.id for row in everyone])
    moved = 0
    for row in members:
        moved += edges.repoint(tx.conn, row.id, survivor.id)
        entries.update_fields(tx.conn, row.rid, {"is_deprecated": True})
        undo = {"consolidated": now, "edges": msgspec.to_builtins(had[row.id])}
        edges.insert(tx.conn, survivor.id, row.id, "supersedes", 1.0, undo, now)
        versions.record(tx.conn, row.id, "merged", now, merged_into=survivor.id)
        tx.after_commit.append(functools.partial(engine.index.set_active, row.rid, False))
        engine.changes.note(tx, "forgotten", row)
    versions.record(tx.conn, survivor.id, "merged", now, merged_from=[row.id for row in members])
    engine.changes.note(tx, "updated", survivor)
    return moved


def unmerge(tx: Tx, entry_id: str) -> None:
    """Undo a merge of `entry_id` (restore calls this as it un-forgets it): drop the edge
    that supersedes it and put back the edges it had, where both ends still exist. The
    survivor keeps what it gained (`restore --version` takes it back to before)."""
    for merge_edge in edges.merged_by(tx.conn, entry_id):
        edges.delete(tx.conn, merge_edge.id)
        for had in msgspec.convert(merge_edge.metadata.get("edges", []), list[p.Edge]):
            edges.insert_if_free(tx.conn, had)


def scheduled() -> p.ConsolidateParams:
    """What the daemon's own periodic run does: every scope, the default threshold."""
    return p.ConsolidateParams(dry_run=False, limit=1000)

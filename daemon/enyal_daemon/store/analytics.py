"""SQL over the usage events (recall, access, update, link, impact) per entry.

A recall's events, one a hit shown (ten a recall), are one row of context_recalls (m025):
its time, its query and its hits' entry ids in rank order, a JSON array. Every other
event is a row of context_analytics. A row an event wrote ~1,500 of them in a flush
after 150 recalls, with both of its indexes (one by entry, random), ~240 WAL pages and
most of the flush's CPU (scripts/benchlib/profile_flush.py). Both tables share one
sequence of event ids: a recall row's id is its first hit's event id, hit i's is id + i
and its rank first_rank + i (a hit whose entry is deleted becomes a null, so the others
keep theirs), and the next event, of either table, takes the id after the last. What a
reader sees is the events as one event a row gave them: `events`, `counts` and `queries`
unpack the recall rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import apsw
import msgspec

from enyal_protocol.wire import Event

from .db import present

# (entry id, event type, when, query, rank in the results)
EventRow = tuple[str, str, str, str | None, int | None]


@dataclass(frozen=True, slots=True)
class RecallRow:
    """A recall's events: the hits shown for `query`, ranked 1.. in the order of `ids`."""

    when: str
    query: str | None
    ids: Sequence[str]


Logged = EventRow | RecallRow

# A recall row as the events it holds: (event id, entry id, when, query, rank), the hits
# of entries deleted since left out. `{rows}` is the recall rows to unpack.
_UNPACKED = (
    "SELECT r.id + j.key AS id, j.value AS entry_id, 'recall' AS event_type, r.event_at, "
    "r.query, r.first_rank + j.key AS result_rank FROM {rows} r, json_each(r.hits) j "
    "WHERE j.value IS NOT NULL"
)
_EVENTS = "SELECT id, entry_id, event_type, event_at, query, result_rank FROM context_analytics"


def insert(conn: apsw.Connection, logged: Sequence[Logged]) -> None:
    """Each event in order, its id the next of the shared sequence. An entry deleted
    since the event was recorded takes its events with it."""
    live = present(conn, "context_entries", "id", {i for item in logged for i in _ids(item)})
    next_id = _next_id(conn)
    events: list[tuple[int, str, str, str, str | None, int | None]] = []
    recalls: list[tuple[int, str, str | None, str]] = []
    for item in logged:
        if isinstance(item, RecallRow):
            hits = [i if i in live else None for i in item.ids]
            if any(hits):
                recalls.append((next_id, item.when, item.query, _json(hits)))
                next_id += len(hits)
        elif item[0] in live:
            events.append((next_id, *item))
            next_id += 1
    conn.executemany(
        "INSERT INTO context_analytics (id, entry_id, event_type, event_at, query, "
        "result_rank) VALUES (?, ?, ?, ?, ?, ?)",
        events,
    )
    conn.executemany(
        "INSERT INTO context_recalls (id, event_at, query, hits) VALUES (?, ?, ?, ?)", recalls
    )


def _ids(item: Logged) -> Sequence[str]:
    return item.ids if isinstance(item, RecallRow) else (item[0],)


def _json(hits: list[str | None]) -> str:
    return msgspec.json.encode(hits).decode()


_decode = msgspec.json.Decoder(list[str | None]).decode


def _next_id(conn: apsw.Connection) -> int:
    row = conn.execute(
        "SELECT max(coalesce((SELECT max(id) FROM context_analytics), 0), coalesce((SELECT "
        "id + json_array_length(hits) - 1 FROM context_recalls ORDER BY id DESC LIMIT 1), 0))"
    ).fetchone()
    return int(row[0]) + 1 if row else 1


def prune(conn: apsw.Connection, before: str, keep: int, limit: int) -> int:
    """Drop up to `limit` rows: those older than `before`, then those beyond the newest
    `keep` events (the oldest first; a recall's events go together); returns how many
    rows were dropped."""
    dropped = 0
    for table in ("context_analytics", "context_recalls"):
        conn.execute(
            f"DELETE FROM {table} WHERE id IN "
            f"(SELECT id FROM {table} WHERE event_at < ? ORDER BY event_at LIMIT ?)",
            (before, limit - dropped),
        )
        dropped += conn.changes()
    # The id of the oldest event kept: each row's events counted from the newest down
    row = conn.execute(
        "SELECT id FROM (SELECT id, sum(n) OVER (ORDER BY id DESC) AS seen FROM ("
        "SELECT id, 1 AS n FROM context_analytics UNION ALL "
        "SELECT id, json_array_length(hits) FROM context_recalls)) WHERE seen > ? LIMIT 1",
        (keep,),
    ).fetchone()
    if row is None:
        return dropped
    for table in ("context_analytics", "context_recalls"):
        conn.execute(
            f"DELETE FROM {table} WHERE id IN "
            f"(SELECT id FROM {table} WHERE id <= ? ORDER BY id LIMIT ?)",
            (row[0], limit - dropped),
        )
        dropped += conn.changes()
    return dropped


def _where(
    since: str, entry_id: str | None, event_type: str | None, table: str
) -> tuple[str, list[str]]:
    """The clause picking the window's rows of `table` (context_analytics: its events;
    context_recalls: the recalls holding a hit, the entry's if one is asked: a row whose
    entries were all deleted holds nulls only, no JSON string)."""
    where, args = ["event_at >= ?"], [since]
    if table == "context_recalls":
        where.append("instr(hits, '\"') > 0")
    if entry_id is not None:
        where.append(
            "entry_id = ?" if table == "context_analytics" else "instr(hits, json_quote(?)) > 0"
        )
        args.append(entry_id)
    if event_type is not None and table == "context_analytics":
        where.append("event_type = ?")
        args.append(event_type)
    return " AND ".join(where), args


def _window(
    since: str, entry_id: str | None, event_type: str | None, limit: int | None = None
) -> tuple[str, list[str | int]]:
    """Every event of the window, as one query (a recall row's unpacked) and its args;
    `limit`: only the newest recall rows that can hold the newest `limit` events."""
    clause, args = _where(since, entry_id, event_type, "context_analytics")
    parts: list[str] = [f"{_EVENTS} WHERE {clause}"]
    out: list[str | int] = [*args]
    if event_type in (None, "recall"):
        clause, args = _where(since, entry_id, event_type, "context_recalls")
        newest = "" if limit is None else " ORDER BY event_at DESC, id DESC LIMIT ?"
        rows = f"(SELECT * FROM context_recalls WHERE {clause}{newest})"
        unpacked = _UNPACKED.format(rows=rows)
        parts.append(unpacked if entry_id is None else f"{unpacked} AND j.value = ?")
        out += [*args, *([] if limit is None else [limit])]
        out += [] if entry_id is None else [entry_id]
    return " UNION ALL ".join(parts), out


def events(
    conn: apsw.Connection, since: str, entry_id: str | None, event_type: str | None, limit: int
) -> list[Event]:
    window, args = _window(since, entry_id, event_type, limit)
    return [
        Event(id=r[0], entry_id=r[1], event_type=r[2], event_at=r[3], query=r[4], result_rank=r[5])
        for r in conn.execute(
            f"SELECT * FROM ({window}) ORDER BY event_at DESC, id DESC LIMIT ?", (*args, limit)
        )
    ]


def counts(
    conn: apsw.Connection, since: str, entry_id: str | None, event_type: str | None
) -> tuple[dict[str, int], dict[str, int]]:
    """(events per type, events per entry for the 100 busiest entries; the busiest first,
    ties by id, as `ORDER BY count DESC, id` gave them). The recall rows' hits are counted
    here as they are decoded: SQLite's GROUP BY over them unpacked sorted every hit of the
    window (a full log, 200k events: ~0.5 s, against ~0.1 s here)."""
    by_type: Counter[str] = Counter()
    by_entry: Counter[str] = Counter()
    clause, args = _where(since, entry_id, event_type, "context_analytics")
    for entry, kind, n in conn.execute(
        f"SELECT entry_id, event_type, count(*) FROM context_analytics WHERE {clause} "
        "GROUP BY 1, 2",
        args,
    ):
        by_type[kind] += n
        by_entry[entry] += n
    if event_type in (None, "recall"):
        clause, args = _where(since, entry_id, event_type, "context_recalls")
        for (hits,) in conn.execute(f"SELECT hits FROM context_recalls WHERE {clause}", args):
            shown = [i for i in _decode(hits) if i is not None and entry_id in (None, i)]
            by_type["recall"] += len(shown)
            by_entry.update(shown)
    busiest = sorted(by_entry.items(), key=lambda item: (-item[1], item[0]))[:100]
    return {k: n for k, n in sorted(by_type.items()) if n}, dict(busiest)


def queries(conn: apsw.Connection) -> Iterator[tuple[int, str, int]]:
    """(row id, query, events it was logged with) of every row that logged one."""
    yield from (
        (int(r[0]), str(r[1]), int(r[2]))
        for r in conn.execute(
            "SELECT id, query, 1 FROM context_analytics WHERE query IS NOT NULL UNION ALL "
            "SELECT r.id, r.query, (SELECT count(*) FROM json_each(r.hits) j "
            "WHERE j.value IS NOT NULL) FROM context_recalls r WHERE r.query IS NOT NULL"
        )
    )


def set_query(conn: apsw.Connection, row_id: int, query: str) -> None:
    """The query of the row `queries` gave as `row_id` (ids are unique across both)."""
    for table in ("context_analytics", "context_recalls"):
        conn.execute(f"UPDATE {table} SET query = ? WHERE id = ?", (query, row_id))

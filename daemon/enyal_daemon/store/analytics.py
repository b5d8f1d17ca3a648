"""SQL over context_analytics: usage events (recall, update, link, impact) per entry."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import apsw

from enyal_protocol.wire import Event

# (entry id, event type, when, query, rank in the results)
EventRow = tuple[str, str, str, str | None, int | None]


def insert(conn: apsw.Connection, events: Sequence[EventRow]) -> None:
    # An entry deleted since the event was recorded takes its events with it.
    conn.executemany(
        "INSERT INTO context_analytics (entry_id, event_type, event_at, query, result_rank) "
        "SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM context_entries WHERE id = ?)",
        [(*e, e[0]) for e in events],
    )


def prune(conn: apsw.Connection, before: str, keep: int, limit: int) -> int:
    """Drop up to `limit` of the events older than `before` or beyond the newest `keep`
    (the oldest first); returns how many were dropped."""
    conn.execute(
        "DELETE FROM context_analytics WHERE id IN "
        "(SELECT id FROM context_analytics WHERE event_at < ? ORDER BY event_at LIMIT ?)",
        (before, limit),
    )
    dropped = conn.changes()
    conn.execute(
        "DELETE FROM context_analytics WHERE id IN (SELECT id FROM context_analytics WHERE id <= "
        "(SELECT id FROM context_analytics ORDER BY id DESC LIMIT 1 OFFSET ?) ORDER BY id LIMIT ?)",
        (keep, limit - dropped),
    )
    return dropped + conn.changes()


def _where(since: str, entry_id: str | None, event_type: str | None) -> tuple[str, list[str]]:
    where, args = ["a.event_at >= ?"], [since]
    if entry_id is not None:
        where.append("a.entry_id = ?")
        args.append(entry_id)
    if event_type is not None:
        where.append("a.event_type = ?")
        args.append(event_type)
    return " AND ".join(where), args


def events(
    conn: apsw.Connection, since: str, entry_id: str | None, event_type: str | None, limit: int
) -> list[Event]:
    clause, args = _where(since, entry_id, event_type)
    return [
        Event(id=r[0], entry_id=r[1], event_type=r[2], event_at=r[3], query=r[4], result_rank=r[5])
        for r in conn.execute(
            "SELECT a.id, a.entry_id, a.event_type, a.event_at, a.query, a.result_rank "
            f"FROM context_analytics a WHERE {clause} ORDER BY a.event_at DESC, a.id DESC LIMIT ?",
            (*args, limit),
        )
    ]


def counts(
    conn: apsw.Connection, since: str, entry_id: str | None, event_type: str | None
) -> tuple[dict[str, int], dict[str, int]]:
    """(events per type, events per entry for the 100 busiest entries)."""
    clause, args = _where(since, entry_id, event_type)
    by_type = dict(
        conn.execute(
            f"SELECT a.event_type, count(*) FROM context_analytics a WHERE {clause} GROUP BY 1",
            args,
        )
    )
    by_entry = dict(
        conn.execute(
            f"SELECT a.entry_id, count(*) FROM context_analytics a WHERE {clause} "
            "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 100",
            args,
        )
    )
    return by_type, by_entry


def queries(conn: apsw.Connection) -> Iterator[tuple[int, str]]:
    """(event id, query) of every event that logged one."""
    for r in conn.execute("SELECT id, query FROM context_analytics WHERE query IS NOT NULL"):
        yield int(r[0]), str(r[1])


def set_query(conn: apsw.Connection, event_id: int, query: str) -> None:
    conn.execute("UPDATE context_analytics SET query = ? WHERE id = ?", (query, event_id))

"""A recall's usage events (one a hit shown) are one row a recall, context_recalls
(m025, store/analytics.py), where they were a row each with two indexes: what `analytics`
and `scan` show of them is what they showed, event by event (ids, ranks, queries,
counts); a store made at m024 keeps its events through the migration; a deleted entry
takes its events with it, the other hits of its recalls keeping theirs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import raw_db
from enyal_daemon.service.memory import memories
from enyal_daemon.service.memory import recall as recall_verb
from enyal_daemon.service.upkeep import analytics as analytics_verb
from enyal_daemon.store import analytics, cjk, migrations
from enyal_protocol import wire as p

SINCE = "2000-01-01T00:00:00Z"
# What the analytics verb read at m024: the events, newest first, and the counts
OLD_EVENTS = (
    "SELECT id, entry_id, event_type, event_at, query, result_rank FROM context_analytics "
    "ORDER BY event_at DESC, id DESC"
)
OLD_BY_TYPE = "SELECT event_type, count(*) FROM context_analytics GROUP BY 1"
OLD_BY_ENTRY = "SELECT entry_id, count(*) FROM context_analytics GROUP BY 1 ORDER BY 2 DESC, 1"


def _shown(conn: Any, entry_id: str | None = None, event_type: str | None = None) -> list[Any]:
    got = analytics.events(conn, SINCE, entry_id, event_type, 1000)
    return [(e.id, e.entry_id, e.event_type, e.event_at, e.query, e.result_rank) for e in got]


def _m024_store(path: Path) -> Any:
    conn = raw_db(path)
    cjk.register(conn)  # m014's function, as the daemon's connections have it
    m024 = migrations.MIGRATIONS.index(migrations.m024_access) + 1
    assert migrations.migrate(conn, upto=m024) == m024
    with conn:
        for entry_id in "abcd":
            conn.execute(
                "INSERT INTO context_entries (id, content, content_hash, content_type, "
                "scope_level, created_at, updated_at) VALUES (?, ?, ?, 'fact', 'global', "
                "'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
                (entry_id, f"memory {entry_id}", f"h{entry_id}"),
            )
        # As m024's flush wrote them: a recall's hits an event each, ids in a row; a hit
        # whose entry was deleted before the flush not written (q2's rank 2)
        conn.executemany(
            "INSERT INTO context_analytics (id, entry_id, event_type, event_at, query, "
            "result_rank) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (1, "a", "recall", "2026-02-01T00:00:00Z", "q1", 1),
                (2, "b", "recall", "2026-02-01T00:00:00Z", "q1", 2),
                (3, "c", "recall", "2026-02-01T00:00:00Z", "q1", 3),
                (4, "a", "access", "2026-02-02T00:00:00Z", None, None),
                (5, "a", "recall", "2026-02-03T00:00:00Z", "q2", 1),
                (6, "c", "recall", "2026-02-03T00:00:00Z", "q2", 3),
                (7, "b", "recall", "2026-02-03T00:00:00Z", "q3", 1),
                (8, "c", "update", "2026-02-04T00:00:00Z", None, None),
                (9, "d", "recall", "2026-02-05T00:00:00Z", "q4", 1),
            ],
        )
    return conn


def test_m025_keeps_every_event_of_a_store_made_at_m024(tmp_path: Path) -> None:
    conn = _m024_store(tmp_path / "enyal.db")
    events = [tuple(r) for r in conn.execute(OLD_EVENTS)]
    by_type, by_entry = dict(conn.execute(OLD_BY_TYPE)), dict(conn.execute(OLD_BY_ENTRY))
    logged = conn.execute("SELECT count(*) FROM context_analytics WHERE query IS NOT NULL")
    with_query = logged.fetchone()[0]
    of_c = dict(conn.execute(f"{OLD_BY_TYPE.replace('GROUP', 'WHERE entry_id = ? GROUP')}", ("c",)))

    assert migrations.migrate(conn) == len(migrations.MIGRATIONS)
    assert _shown(conn) == events
    assert analytics.counts(conn, SINCE, None, None) == (by_type, by_entry)
    assert analytics.counts(conn, SINCE, "c", None) == (of_c, {"c": sum(of_c.values())})
    assert analytics.counts(conn, SINCE, None, "recall")[0] == {"recall": by_type["recall"]}
    assert sum(analytics.counts(conn, SINCE, None, "recall")[1].values()) == by_type["recall"]
    assert _shown(conn, "c") == [e for e in events if e[1] == "c"]
    assert _shown(conn, "b", "recall") == [e for e in events if e[1:3] == ("b", "recall")]
    assert sum(n for _, _, n in analytics.queries(conn)) == with_query
    # One row a recall (q2's two, split where its rank 2 is missing), the rest as they were
    rows = list(conn.execute("SELECT id, query, hits, first_rank FROM context_recalls"))
    assert rows == [
        (1, "q1", '["a","b","c"]', 1),
        (5, "q2", '["a"]', 1),
        (6, "q2", '["c"]', 3),
        (7, "q3", '["b"]', 1),
        (9, "q4", '["d"]', 1),
    ]
    left = conn.execute("SELECT id FROM context_analytics ORDER BY id")
    assert [r[0] for r in left] == [4, 8]

    # A deleted entry takes its events with it; the other hits keep their ids and ranks
    with conn:
        conn.execute("DELETE FROM context_entries WHERE id = 'a'")
        conn.execute("DELETE FROM context_entries WHERE id = 'd'")
    left = [e for e in events if e[1] not in ("a", "d")]
    assert _shown(conn) == left
    newest = analytics.events(conn, SINCE, None, "recall", 2)  # past the rows left empty
    assert [(e.id, e.entry_id) for e in newest] == [e[:2] for e in left if e[2] == "recall"][:2]
    # A row left without a hit keeps no query (its ids stay taken until it is pruned)
    rows = list(conn.execute("SELECT id, query, hits FROM context_recalls"))
    assert rows == [
        (1, "q1", '[null,"b","c"]'),
        (5, None, "[null]"),
        (6, "q2", '["c"]'),
        (7, "q3", '["b"]'),
        (9, None, "[null]"),
    ]
    # The next event takes the id after the last, whichever table holds it
    with conn:
        analytics.insert(conn, [analytics.RecallRow("2026-02-06T00:00:00Z", "q5", ["b", "c"])])
        analytics.insert(conn, [("b", "link", "2026-02-07T00:00:00Z", None, None)])
    assert _shown(conn)[:3] == [
        (12, "b", "link", "2026-02-07T00:00:00Z", None, None),
        (11, "c", "recall", "2026-02-06T00:00:00Z", "q5", 2),
        (10, "b", "recall", "2026-02-06T00:00:00Z", "q5", 1),
    ]
    conn.close()


def test_a_flush_writes_a_row_a_recall_and_shows_an_event_a_hit(memory: Any) -> None:
    ids = [
        memories.remember(memory, p.RememberParams(content=text, scope="global")).id
        for text in (
            "We deploy the API with ArgoCD.",
            "The API listens on port 8080.",
            "Deploys of the API run on Fridays.",
        )
    ]
    asked = {
        q: p.RecallParams(query=q, min_confidence=0, min_relevance=0)
        for q in ("deploy the API", "API port")
    }
    shown = {q: [h.id for h in recall_verb.recall(memory, a).results] for q, a in asked.items()}
    assert all(ids[2] in hits for hits in shown.values())
    memories.get(memory, p.GetParams(id=ids[1]))  # an access event between them
    memories.forget(memory, p.ForgetParams(id=ids[2], hard=True))  # before the flush
    memory.flush_bookkeeping()

    conn = memory.reader()
    assert conn.execute("SELECT count(*) FROM context_recalls").fetchone()[0] == 2
    assert [r[0] for r in conn.execute("SELECT event_type FROM context_analytics")] == ["access"]
    result = analytics_verb.analytics(memory, p.AnalyticsParams(limit=1000))
    recalls = [e for e in reversed(result.events) if e.event_type == "recall"]
    expected = [
        (i, q, rank)
        for q, hits in shown.items()
        for rank, i in enumerate(hits, 1)
        if i != ids[2]  # its events went with it
    ]
    assert [(e.entry_id, e.query, e.result_rank) for e in recalls] == expected
    every = [e.id for e in reversed(result.events)]
    assert every == sorted(set(every))  # one sequence of ids, in the order recorded
    assert result.summary.by_type == {"access": 1, "recall": len(expected)}
    assert result.summary.total_events == len(expected) + 1
    used = {i: sum(e[0] == i for e in expected) + (i == ids[1]) for i in ids[:2]}
    assert result.summary.by_entry == used

"""The knowledge graph and the validity layer, on the engine with a real DB and model."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import apsw
import pytest

from conftest import an_entry, old_store
from enyal_daemon.errors import Conflict, InvalidValue, NotFound
from enyal_daemon.service.memory import graph, memories, validity
from enyal_daemon.service.memory import recall as recall_verb
from enyal_daemon.service.upkeep import analytics as analytics_verb
from enyal_daemon.service.upkeep import health, transfer
from enyal_daemon.service.upkeep import stats as stats_verb
from enyal_daemon.store import entries, migrations
from enyal_protocol import wire as p


def add(memory: Any, content: str, **kw: Any) -> str:
    kw.setdefault("scope", "global")
    result: p.RememberResult = memories.remember(memory, p.RememberParams(content=content, **kw))
    return result.id


def link(memory: Any, a: str, b: str, edge_type: str = "relates_to", **kw: Any) -> p.Edge:
    edge: p.Edge = graph.link(
        memory, p.LinkParams(source_id=a, target_id=b, edge_type=edge_type, **kw)
    )
    return edge


def edge_ids(
    memory: Any, entry: str, direction: str = "both", edge_type: str | None = None
) -> set[tuple[str, str, str]]:
    r = graph.edges(memory, p.EdgesParams(id=entry, direction=direction, edge_type=edge_type))
    return {(e.source_id, e.target_id, e.edge_type) for e in r.edges}


def test_link_unlink_and_errors(memory: Any) -> None:
    a, b = add(memory, "alpha"), add(memory, "beta")
    e = link(memory, a, b, "depends_on", confidence=0.7, metadata={"why": "test"})
    assert (e.source_id, e.target_id, e.edge_type, e.confidence) == (a, b, "depends_on", 0.7)
    assert e.metadata == {"why": "test"}
    with pytest.raises(Conflict):
        link(memory, a, b, "depends_on")
    link(memory, a, b, "relates_to")  # another type between the same pair is another edge
    with pytest.raises(NotFound):
        link(memory, a, "missing")
    with pytest.raises(NotFound):
        link(memory, "missing", a)
    with pytest.raises(InvalidValue):
        link(memory, a, a)
    removed = graph.unlink(memory, p.UnlinkParams(source_id=a, target_id=b, edge_type="depends_on"))
    assert removed.id == e.id
    with pytest.raises(NotFound):
        graph.unlink(memory, p.UnlinkParams(source_id=a, target_id=b, edge_type="depends_on"))
    assert edge_ids(memory, a) == {(a, b, "relates_to")}


def test_edges_by_direction_and_type(memory: Any) -> None:
    a, b, c = add(memory, "a one"), add(memory, "b two"), add(memory, "c three")
    link(memory, a, b, "depends_on")
    link(memory, c, a, "relates_to")
    link(memory, a, c, "conflicts_with")
    assert edge_ids(memory, a, "outgoing") == {(a, b, "depends_on"), (a, c, "conflicts_with")}
    assert edge_ids(memory, a, "incoming") == {(c, a, "relates_to")}
    assert len(edge_ids(memory, a, "both")) == 3
    assert edge_ids(memory, a, "both", "relates_to") == {(c, a, "relates_to")}
    with pytest.raises(NotFound):
        graph.edges(memory, p.EdgesParams(id="missing"))


def chain(memory: Any, n: int, edge_type: str = "depends_on") -> list[str]:
    ids = [add(memory, f"node number {i} in the chain") for i in range(n)]
    for x, y in itertools.pairwise(ids):
        link(memory, x, y, edge_type)
    return ids


def traverse(memory: Any, **kw: Any) -> list[tuple[str, int]]:
    r = graph.traverse(memory, p.TraverseParams(**kw))
    return [(n.entry.id, n.depth) for n in r.nodes]


def test_traverse_hops_depth_and_direction(memory: Any) -> None:
    ids = chain(memory, 6)
    assert traverse(memory, id=ids[0], depth=1) == [(ids[1], 1)]
    assert traverse(memory, id=ids[0], depth=4) == [(ids[i], i) for i in range(1, 5)]
    assert traverse(memory, id=ids[5], depth=2) == []  # nothing goes out of the last node
    assert traverse(memory, id=ids[5], direction="incoming", depth=2) == [(ids[4], 1), (ids[3], 2)]
    assert sorted(traverse(memory, id=ids[2], direction="both", depth=1)) == sorted(
        [(ids[1], 1), (ids[3], 1)]
    )
    assert traverse(memory, id=ids[0], edge_types=["relates_to"], depth=4) == []


def test_traverse_shortest_depth_cycles_and_via(memory: Any) -> None:
    a, b, c, d = (add(memory, f"cycle node {x}") for x in "abcd")
    link(memory, a, b)
    link(memory, b, c)
    link(memory, c, a)  # a cycle
    link(memory, a, c)  # a shortcut: c is at depth 1, not 2
    link(memory, c, d)
    r = graph.traverse(memory, p.TraverseParams(id=a, depth=4))
    got = {n.entry.id: (n.depth, n.via.source_id) for n in r.nodes}
    assert got == {b: (1, a), c: (1, a), d: (2, c)}
    assert r.start.id == a


def test_traverse_from_query(memory: Any) -> None:
    a = add(memory, "The payments service talks to Stripe over HTTPS.")
    b = add(memory, "Stripe webhooks are verified with the signing secret.")
    link(memory, a, b)
    r = graph.traverse(memory, p.TraverseParams(query="how does the payments service reach stripe"))
    assert r.start.id == a and [n.entry.id for n in r.nodes] == [b]
    with pytest.raises(InvalidValue):
        graph.traverse(memory, p.TraverseParams())
    with pytest.raises(InvalidValue):
        graph.traverse(memory, p.TraverseParams(id=a, query="x"))


def test_long_chain_at_depth_four(memory: Any) -> None:
    lines = [f'{{"id": "n{i}", "content": "chain link {i}"}}' for i in range(1000)]
    assert transfer.import_lines(memory, p.ImportParams(lines=lines)).stored == 1000

    def job(tx: Any) -> None:
        for i in range(999):
            graph.link_in_tx(memory, tx, f"n{i}", f"n{i + 1}", "depends_on")

    memory.writer.run(job)
    assert traverse(memory, id="n0", depth=4) == [(f"n{i}", i) for i in range(1, 5)]
    impact = graph.impact(memory, p.ImpactParams(id="n999", depth=4))
    assert [e.id for e in impact.direct] == ["n998"]
    assert [(n.entry.id, n.depth) for n in impact.transitive] == [
        ("n997", 2),
        ("n996", 3),
        ("n995", 4),
    ]


def test_impact_direct_transitive_related(memory: Any) -> None:
    core, mid, top, rel, weak = (
        add(memory, f"impact {x}") for x in ("core", "mid", "top", "rel", "weak")
    )
    link(memory, mid, core, "depends_on")
    link(memory, top, mid, "depends_on")
    link(memory, rel, core, "relates_to", confidence=0.9)
    link(memory, core, weak, "relates_to", confidence=0.3)
    r = graph.impact(memory, p.ImpactParams(id=core))
    assert [e.id for e in r.direct] == [mid]
    assert [(n.entry.id, n.depth) for n in r.transitive] == [(top, 2)]
    assert [(x.entry.id, x.confidence) for x in r.related] == [(rel, 0.9)]


def test_hard_delete_cascades_edges(memory: Any, home: Path) -> None:
    a, b, c = add(memory, "x1"), add(memory, "x2"), add(memory, "x3")
    link(memory, a, b)
    link(memory, c, a, "depends_on")
    memories.forget(memory, p.ForgetParams(id=a, hard=True))
    assert edge_ids(memory, b) == set() and edge_ids(memory, c) == set()
    conn = apsw.Connection(str(home / "enyal.db"))
    assert conn.execute("SELECT count(*) FROM context_edges").fetchone()[0] == 0
    assert (
        conn.execute("SELECT count(*) FROM context_versions WHERE entry_id = ?", (a,)).fetchone()[0]
        == 0
    )


def test_remember_with_explicit_edges_and_auto_link(memory: Any) -> None:
    old = add(memory, "We deploy with Capistrano.")
    dep = add(memory, "The servers run Ubuntu 22.04.")
    similar = add(memory, "Deployments go through our CI pipeline on every merge.")
    r = memories.remember(
        memory,
        p.RememberParams(
            content="We deploy with Kamal through the CI pipeline.",
            scope="global",
            supersedes=[old],
            depends_on=[dep],
            auto_link=True,
            auto_link_threshold=0.4,
        ),
    )
    got = {(e.target_id, e.edge_type) for e in r.edges}
    assert (old, "supersedes") in got and (dep, "depends_on") in got
    auto = [e for e in r.edges if e.metadata.get("auto_generated")]
    assert auto and all(e.edge_type == "relates_to" and e.confidence >= 0.4 for e in auto)
    assert similar in {e.target_id for e in auto}
    # a missing target makes the whole remember fail: nothing is stored
    before = entries.count(memory.reader())
    with pytest.raises(NotFound):
        memories.remember(
            memory,
            p.RememberParams(content="orphan statement", scope="global", relates_to=["nope"]),
        )
    assert entries.count(memory.reader()) == before
    s = stats_verb.stats(memory)
    assert s.total_edges == len(r.edges)
    assert s.edges_by_type["supersedes"] == 1 and s.edges_by_type["depends_on"] == 1
    assert s.connected_entries == 1 + len({e.target_id for e in r.edges})


def test_recall_validity_fields(memory: Any) -> None:
    old = add(memory, "The API rate limit is 100 requests per minute.")
    new = memories.remember(
        memory,
        p.RememberParams(
            content="The API rate limit is 500 requests per minute.",
            scope="global",
            supersedes=[old],
        ),
    ).id
    rival = add(memory, "The API has no rate limit at all.")
    link(memory, rival, new, "conflicts_with")
    hits = recall_verb.recall(memory, p.RecallParams(query="API rate limit")).results
    assert old not in [h.id for h in hits]
    by_id = {h.id: h for h in hits}
    assert by_id[new].has_conflicts and by_id[rival].has_conflicts
    assert not by_id[new].is_superseded
    assert all(0 < h.freshness_score <= 1 and h.adjusted_score <= h.score for h in hits)
    everything = recall_verb.recall(
        memory, p.RecallParams(query="API rate limit", exclude_superseded=False)
    ).results
    stale = next(h for h in everything if h.id == old)
    assert stale.is_superseded and stale.superseded_by == new
    unflagged = recall_verb.recall(
        memory, p.RecallParams(query="API rate limit", flag_conflicts=False)
    ).results
    assert not any(h.has_conflicts for h in unflagged)


def test_conflict_detection_and_supersede_suggestions(memory: Any) -> None:
    py = add(memory, "Use Python 3.11 for this project.", content_type="decision")
    tabs = add(memory, "Always use tabs for indentation.", content_type="convention")
    r = memories.remember(
        memory,
        p.RememberParams(
            content="Use Python 3.12 for this project.",
            content_type="decision",
            scope="global",
            detect_conflicts=True,
            suggest_supersedes=True,
        ),
    )
    assert [c.id for c in r.conflicts] == [py] and "3.12" in r.conflicts[0].reason
    assert [c.id for c in r.supersedes_candidates] == [py]
    neg = memories.remember(
        memory,
        p.RememberParams(
            content="Never use tabs for indentation.", scope="global", detect_conflicts=True
        ),
    )
    assert [c.id for c in neg.conflicts] == [tabs] and "negation" in neg.conflicts[0].reason
    assert edge_ids(memory, py) == set()  # nothing is linked unless asked
    quiet = memories.remember(
        memory,
        p.RememberParams(
            content="Redis holds the session cache.", scope="global", detect_conflicts=True
        ),
    )
    assert quiet.conflicts == []


def versions_of(memory: Any, entry: str) -> list[p.Version]:
    return validity.history(memory, p.HistoryParams(id=entry)).versions


def test_versions_and_restore_to_an_earlier_version(memory: Any) -> None:
    e = add(memory, "Timeouts are 5 seconds.", tags=["net"])
    memories.update(
        memory, p.UpdateParams(id=e, content="Timeouts are 10 seconds.", confidence=0.9)
    )
    memories.forget(memory, p.ForgetParams(id=e))
    memories.restore(memory, p.RestoreParams(id=e))
    vs = versions_of(memory, e)
    assert [(v.version, v.change_type) for v in vs] == [
        (4, "restored"),
        (3, "forgotten"),
        (2, "updated"),
        (1, "created"),
    ]
    assert vs[-1].content == "Timeouts are 5 seconds." and vs[2].confidence == 0.9
    back = memories.restore(memory, p.RestoreParams(id=e, version=1))
    assert (back.content, back.confidence, back.tags) == ("Timeouts are 5 seconds.", 1.0, ["net"])
    vs = versions_of(memory, e)
    assert (vs[0].version, vs[0].change_type, vs[0].content) == (
        5,
        "reverted",
        "Timeouts are 5 seconds.",
    )
    assert len(vs) == 5  # history was added to, not rewritten
    assert (
        recall_verb.recall(memory, p.RecallParams(query="timeouts 5 seconds")).results[0].content
        == "Timeouts are 5 seconds."
    )
    with pytest.raises(NotFound):
        memories.restore(memory, p.RestoreParams(id=e, version=42))


def test_history_walks_the_supersession_chain(memory: Any) -> None:
    v1 = add(memory, "Use MySQL.")
    v2 = memories.remember(
        memory, p.RememberParams(content="Use PostgreSQL 15.", scope="global", supersedes=[v1])
    ).id
    v3 = memories.remember(
        memory, p.RememberParams(content="Use PostgreSQL 16.", scope="global", supersedes=[v2])
    ).id
    h = validity.history(memory, p.HistoryParams(id=v2))
    assert [e.id for e in h.supersedes] == [v1] and [e.id for e in h.superseded_by] == [v3]
    h1 = validity.history(memory, p.HistoryParams(id=v1))
    assert [e.id for e in h1.superseded_by] == [v2, v3]


def test_as_of_recall_across_update_and_supersession(memory: Any) -> None:
    e = add(memory, "The staging database is called stage-db-1.")
    t_created = memories.get(memory, p.GetParams(id=e)).updated_at
    memories.update(
        memory, p.UpdateParams(id=e, content="The staging database is called stage-db-2.")
    )
    t_updated = memories.get(memory, p.GetParams(id=e)).updated_at
    new = memories.remember(
        memory,
        p.RememberParams(
            content="Staging now uses the shared cluster db-shared.", scope="global", supersedes=[e]
        ),
    ).id

    def recall_at(when: str) -> list[tuple[str, str]]:
        hits = recall_verb.recall(
            memory, p.RecallParams(query="staging database name", as_of=when)
        ).results
        return [(h.id, h.content) for h in hits]

    assert recall_at(t_created) == [(e, "The staging database is called stage-db-1.")]
    assert recall_at(t_updated) == [(e, "The staging database is called stage-db-2.")]
    now = datetime.now(UTC).isoformat()
    assert [i for i, _ in recall_at(now)] == [new]  # e is superseded by now
    before = (datetime.now(UTC) - timedelta(days=365)).date().isoformat()
    assert recall_at(before) == []
    with pytest.raises(InvalidValue):
        recall_at("last tuesday")


def test_as_of_recall_finds_what_was_forgotten_since_and_not_what_came_later(
    memory: Any,
) -> None:
    gone = add(memory, "Deploys go out from the jenkins box every Tuesday.")
    t_before_forget = memories.get(memory, p.GetParams(id=gone)).updated_at
    memories.forget(memory, p.ForgetParams(id=gone))
    later = add(memory, "Deploys go out from GitHub Actions on every merge.")

    def ids_at(when: str) -> list[str]:
        query = p.RecallParams(query="how do deploys go out", as_of=when, min_confidence=0)
        return [h.id for h in recall_verb.recall(memory, query).results]

    assert ids_at(t_before_forget) == [gone]  # believed then, forgotten since
    assert ids_at(datetime.now(UTC).isoformat()) == [later]


def test_health_on_a_crafted_db(memory: Any) -> None:
    old = "2020-01-01T00:00:00Z"
    lines = [
        f'{{"id": "s1", "content": "stale one", "updated_at": "{old}", "created_at": "{old}"}}',
        f'{{"id": "s2", "content": "stale two", "updated_at": "{old}", "created_at": "{old}"}}',
        '{"id": "a", "content": "fresh a"}',
        '{"id": "b", "content": "fresh b"}',
        '{"id": "c", "content": "fresh c"}',
        '{"id": "d", "content": "fresh d"}',
        '{"id": "gone", "content": "forgotten", "is_deprecated": true}',
    ]
    assert transfer.import_lines(memory, p.ImportParams(lines=lines)).stored == 7
    link(memory, "a", "b", "supersedes")  # b superseded
    link(memory, "c", "a", "conflicts_with")  # a and c in conflict
    h = health.health(memory, p.HealthParams())
    # active 6; superseded {b}; conflicts {a, c}; stale {s1, s2}; orphans {s1, s2, d}
    assert (h.total_entries, h.active_entries) == (7, 6)
    assert (h.superseded_count, h.conflicts_count, h.stale_count, h.orphan_count) == (1, 2, 2, 3)
    expected = 1 - (1 * 0.05 + 2 * 0.1 + 2 * 0.02 + 3 * 0.01) / 6
    assert h.health_score == pytest.approx(expected)
    assert set(h.issues.orphan_entries) == {"s1", "s2", "d"} and h.issues.superseded_entries == [
        "b"
    ]
    r = health.review(memory, p.ReviewParams())
    assert {e.id for e in r.stale} == {"s1", "s2"} and {e.id for e in r.conflicted} == {"a", "c"}
    only = health.review(memory, p.ReviewParams(kind="orphan", limit=1))
    assert len(only.orphan) == 1 and only.stale == [] and only.conflicted == []


def test_analytics_records_recall_update_link_impact(memory: Any) -> None:
    a, b = (
        add(memory, "Feature flags live in LaunchDarkly."),
        add(memory, "Flags are cleaned up monthly."),
    )
    recall_verb.recall(memory, p.RecallParams(query="feature flags"))
    memories.update(memory, p.UpdateParams(id=a, confidence=0.9))
    link(memory, a, b)
    graph.impact(memory, p.ImpactParams(id=b))
    r = analytics_verb.analytics(memory, p.AnalyticsParams())
    assert r.summary.by_type["recall"] >= 1
    assert (
        r.summary.by_type["update"] == 1
        and r.summary.by_type["link"] == 1
        and r.summary.by_type["impact"] == 1
    )
    recall_events = [e for e in r.events if e.event_type == "recall"]
    assert {e.query for e in recall_events} == {"feature flags"}
    assert sorted(e.result_rank for e in recall_events if e.result_rank) == list(
        range(1, len(recall_events) + 1)
    )
    only_a = analytics_verb.analytics(memory, p.AnalyticsParams(entry_id=a, event_type="update"))
    assert [e.entry_id for e in only_a.events] == [a]


def test_migration_from_previous_schema_keeps_data(home: Path, embedder: Any) -> None:
    from enyal_daemon.service.core.engine import Engine

    db = home / "enyal.db"
    conn = old_store(db, 2)  # the schema before the graph
    vec = embedder.embed("an entry from before the graph existed")
    entry = an_entry(
        "an entry from before the graph existed",
        id="legacy",
        access_count=3,
        tags=["old"],
        metadata={"k": 1},
    )
    with conn:  # the columns of that schema, as the release that wrote it did
        conn.execute(
            "INSERT INTO context_entries (id, content, content_hash, content_type, scope_level, "
            "scope_path, confidence, created_at, updated_at, accessed_at, access_count, "
            "source_type, source_ref, tags, metadata, is_deprecated) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                entry.id,
                entry.content,
                entry.content_hash,
                "fact",
                "global",
                None,
                1.0,
                entry.created_at,
                entry.updated_at,
                None,
                3,
                None,
                None,
                '["old"]',
                '{"k": 1}',
                0,
            ),
        )
        conn.execute(
            "INSERT INTO context_vectors(rowid, embedding) VALUES (last_insert_rowid(), ?)",
            (vec.tobytes(),),
        )
    conn.close()
    m = Engine(db, embedder)
    try:
        assert memories.get(m, p.GetParams(id="legacy")) == entry
        assert [v.change_type for v in versions_of(m, "legacy")] == ["created"]
        other = add(m, "a new entry after the upgrade")
        link(m, other, "legacy", "depends_on")
        hits = recall_verb.recall(
            m, p.RecallParams(query="an entry from before the graph existed", min_confidence=0)
        ).results
        legacy = next(h for h in hits if h.id == "legacy")  # its vector came through the upgrade
        assert legacy.semantic == pytest.approx(1.0, abs=5e-3)  # int8 index rounding
        # Its tags were copied into the tag table the filter reads.
        tagged = recall_verb.recall(
            m, p.RecallParams(query="an entry from before", tags=["old"], min_confidence=0)
        ).results
        assert [h.id for h in tagged] == ["legacy"]
        # Its metadata too, into the table the `where` filter reads.
        where = recall_verb.recall(
            m, p.RecallParams(query="an entry from before", where={"k": 1}, min_confidence=0)
        ).results
        assert [h.id for h in where] == ["legacy"]
        row = apsw.Connection(str(db)).execute("SELECT max(version) FROM schema_version").fetchone()
        assert row[0] == len(migrations.MIGRATIONS)
    finally:
        m.close()

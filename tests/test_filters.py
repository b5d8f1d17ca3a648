"""Filtered recall: metadata `where`, and filters of every breadth against exact search.

A filter must never change which entries are the best matches among those it allows:
a selective one (a handful among hundreds) still finds its few, and a broad one
returns what an exact search over the entries it allows returns.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import numpy as np
import pytest

from enyal_daemon.service.memory import listing, memories
from enyal_daemon.service.memory import recall as recall_verb
from enyal_daemon.service.upkeep import transfer
from enyal_daemon.store import entries
from enyal_daemon.store.filters import EntryFilter
from enyal_protocol import wire as p

SUBJECTS = ["billing", "search", "auth", "uploads", "reports", "the scheduler", "webhooks"]
FACTS = [
    "{s} runs its tests with pytest and a fresh database per test",
    "{s} logs JSON lines and ships them to the log cluster",
    "{s} deploys from the release workflow after a green build",
    "{s} keeps its config in environment variables, never in files",
    "{s} retries calls to the upstream three times with backoff",
    "{s} caches lookups in Redis for five minutes",
    "{s} is owned by the platform team, who review its changes",
    "{s} pins its dependencies and upgrades them monthly",
]
QUERIES = [
    "how are tests run?",
    "where do the logs go?",
    "how is it deployed?",
    "where does configuration live?",
    "what happens when the upstream fails?",
    "is anything cached?",
]


def remember(memory: Any, content: str, **kw: Any) -> p.RememberResult:
    kw.setdefault("scope", "global")
    result: p.RememberResult = memories.remember(memory, p.RememberParams(content=content, **kw))
    return result


def recall_ids(memory: Any, query: str, **kw: Any) -> list[str]:
    params = p.RecallParams(query=query, min_confidence=0, **kw)
    return [h.id for h in recall_verb.recall(memory, params).results]


def test_where_matches_metadata_values_as_stored(memory: Any) -> None:
    a = remember(memory, "The parser is written in Rust.", metadata={"lang": "Rust", "n": 3})
    b = remember(memory, "The web app is written in TypeScript.", metadata={"lang": "TypeScript"})
    c = remember(
        memory,
        "The reviewed note about builds.",
        metadata={"reviewed": True, "ratio": 1.5, 'odd "key"': "x", "nested": {"a": 1}},
    )
    d = remember(memory, "A note reviewed the old way.", metadata={"reviewed": 1, "n": "3"})
    remember(memory, "An unreviewed note.", metadata={"reviewed": False, "lang": None})
    q = "what is written where?"
    assert recall_ids(memory, q, where={"lang": "Rust"}) == [a.id]
    assert set(recall_ids(memory, q, where={"reviewed": True})) == {c.id, d.id}  # true is 1
    assert recall_ids(memory, q, where={"n": 3}) == [a.id]  # a number is not its text
    assert recall_ids(memory, q, where={"n": "3"}) == [d.id]
    assert recall_ids(memory, q, where={"ratio": 1.5}) == [c.id]
    assert recall_ids(memory, q, where={'odd "key"': "x"}) == [c.id]
    assert recall_ids(memory, q, where={"nested": '{"a":1}'}) == [c.id]  # as json_extract had it
    assert recall_ids(memory, q, where={"lang": "Rust", "n": 3}) == [a.id]
    assert recall_ids(memory, q, where={"lang": "Rust", "n": 4}) == []
    assert recall_ids(memory, q, where={"lang": "Go"}) == []
    listed = listing.list_entries(memory, p.ListParams(where={"lang": "TypeScript"}))
    assert [e.id for e in listed.entries] == [b.id]
    # The filter follows updates and deletions.
    memories.update(memory, p.UpdateParams(id=a.id, metadata={"lang": "Go"}))
    assert recall_ids(memory, q, where={"lang": "Rust"}) == []
    assert recall_ids(memory, q, where={"lang": "Go"}) == [a.id]
    memories.forget(memory, p.ForgetParams(id=a.id, hard=True))
    assert recall_ids(memory, q, where={"lang": "Go"}) == []
    left = memory.reader().execute("SELECT count(*) FROM context_metadata").fetchone()[0]
    assert left == 8  # c's four pairs, d's two, the unreviewed note's one (its null is not kept)


@pytest.fixture
def many(memory: Any) -> dict[str, Any]:
    """Hundreds of entries: half tagged `common` (with metadata half = yes), three tagged
    `rare` (with metadata team = solo) that say nothing like the queries."""
    rng = random.Random(11)
    lines, common = [], []
    for i in range(420):
        text = rng.choice(FACTS).format(s=rng.choice(SUBJECTS)) + f" (note {i})"
        tags = ["common"] if i % 2 == 0 else []
        meta = {"half": "yes"} if i % 2 == 0 else {}
        lines.append(
            msgspec.json.encode({"content": text, "tags": tags, "metadata": meta}).decode()
        )
        common.append(i % 2 == 0)
    rare = [
        "The office plants are watered on Mondays.",
        "Lunch is ordered from the place across the street.",
        "The coffee machine descales itself every night.",
    ]
    for text in rare:
        line = {"content": text, "tags": ["rare"], "metadata": {"team": "solo"}}
        lines.append(msgspec.json.encode(line).decode())
    result = transfer.import_lines(memory, p.ImportParams(lines=lines))
    ids = [x.id for x in result.lines]
    assert result.stored == len(lines)
    return {"rare": set(ids[-len(rare) :])}


def test_a_selective_filter_finds_its_few_among_many(
    memory: Any, many: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    for query in QUERIES:
        assert set(recall_ids(memory, query, tags=["rare"])) == many["rare"]
        assert set(recall_ids(memory, query, where={"team": "solo"})) == many["rare"]
    # Also when the filter takes the widened path and almost none of the widened
    # candidates pass: every entry it allows is searched after all.
    monkeypatch.setattr(recall_verb, "EXACT_FILTER_MAX", 2)
    monkeypatch.setattr(recall_verb, "WIDEN", 1)
    for query in QUERIES:
        assert set(recall_ids(memory, query, tags=["rare"])) == many["rare"]


def _exact(memory: Any, f: EntryFilter, qvec: Any, k: int) -> list[int]:
    """The k allowed rids nearest the query by float32 cosine over every stored vector."""
    conn = memory.reader()
    allowed = entries.filtered_rids(conn, f, None)
    vecs = np.stack(
        [np.frombuffer(entries.vector(conn, rid) or b"", np.float32) for rid in allowed]
    )
    sims = vecs @ qvec
    return [allowed[i] for i in np.argsort(-sims, kind="stable")[:k]]


@pytest.mark.parametrize("path", ["exact", "widened"])
def test_a_broad_filter_returns_the_exact_filtered_nearest(
    memory: Any, many: dict[str, Any], monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    if path == "widened":  # the filter lets more through than is worth listing
        monkeypatch.setattr(recall_verb, "EXACT_FILTER_MAX", 10)
    conn = memory.reader()
    k = 20
    for f in (EntryFilter(tags=("common",)), EntryFilter(metadata=(("half", "yes"),))):
        for query in QUERIES:
            qvec = memory.embed(query)
            got = [rid for rid, _ in recall_verb._nearest(memory, conn, qvec, k, f)]
            want = _exact(memory, f, qvec, k)
            assert len(got) == k
            # int8 codes may swap near-ties at the edge, nothing more
            assert len(set(got) & set(want)) >= k - 2
            assert got[0] in want[:2]
            allowed = set(entries.filtered_rids(conn, f, None))
            assert set(got) <= allowed


def _masked_is_sql(engine: Any, f: EntryFilter, query: str) -> bool:
    """Whether the index's search under this filter holds exactly the rows SQL allows."""
    conn = engine.reader()
    allowed = set(entries.filtered_rids(conn, f, None))
    got = recall_verb._nearest(engine, conn, engine.embed(query), 1000, f)
    return {rid for rid, _ in got} == allowed


def test_a_type_filter_is_served_by_the_index_and_follows_type_changes(
    memory: Any, many: dict[str, Any], home: Any, embedder: Any
) -> None:
    """A type filter (alone or with a scope) is a mask in the vector index, which must
    agree with SQL's content_type after an update changes a type, a restore reverts it,
    and the index is rebuilt from the database at start."""
    from enyal_daemon.service.core.engine import Engine

    decision = remember(memory, "We decided to deploy from the release workflow only.")
    facts, decisions = EntryFilter(content_type="fact"), EntryFilter(content_type="decision")
    assert recall_verb._index_mask(memory, decisions) is not None
    q = "how is it deployed?"
    assert decision.id not in recall_ids(memory, q, content_type="decision")
    memories.update(memory, p.UpdateParams(id=decision.id, content_type="decision"))
    assert _masked_is_sql(memory, decisions, q) and _masked_is_sql(memory, facts, q)
    assert recall_ids(memory, q, content_type="decision") == [decision.id]
    assert recall_ids(memory, q, content_type="decision", scope="global") == [decision.id]
    assert recall_ids(memory, q, content_type="decision", scope="project", cwd="/x") == []
    memory.close()
    reopened = Engine(home / "enyal.db", embedder)
    try:
        assert _masked_is_sql(reopened, decisions, q) and _masked_is_sql(reopened, facts, q)
        assert recall_ids(reopened, q, content_type="decision") == [decision.id]
        memories.restore(reopened, p.RestoreParams(id=decision.id, version=1))
        assert _masked_is_sql(reopened, decisions, q) and _masked_is_sql(reopened, facts, q)
        assert recall_ids(reopened, q, content_type="decision") == []
    finally:
        reopened.close()


def test_a_tag_or_metadata_filter_from_a_project_is_served_by_the_index(
    memory: Any, many: dict[str, Any], tmp_path: Any
) -> None:
    """Tags and metadata asked from a project's view (every recall with a cwd) are rids
    listed from their own indexes and searched within the view's mask, not each entry of
    the view checked in SQL: the rows searched are exactly the ones SQL allows."""
    (tmp_path / ".git").mkdir()
    inside = remember(memory, "The office plants here are watered by the team.", tags=["rare"])
    q = "when are the plants watered?"
    view = recall_verb._filter(memory, p.RecallParams(query=q, cwd=str(tmp_path))).view
    assert view is not None
    remember(
        memory,
        "The plants of another project are watered on Fridays.",
        tags=["rare"],
        scope="project",
        scope_path="/elsewhere/project",
    )
    for f in (
        EntryFilter(view=view, tags=("rare",)),
        EntryFilter(view=view, metadata=(("team", "solo"),)),
        EntryFilter(view=view, tags=("rare", "common")),
        EntryFilter(view=view, content_type="fact", tags=("rare",)),
        EntryFilter(tags=("rare",)),
    ):
        assert recall_verb._index_mask(memory, f) is not None
        assert _masked_is_sql(memory, f, q)
    got = set(recall_ids(memory, q, tags=["rare"], cwd=str(tmp_path)))
    assert got == many["rare"] | {inside.id}  # not the other project's


def test_a_remembered_tag_or_metadata_listing_never_answers_stale_rows(
    memory: Any, many: dict[str, Any], tmp_path: Any
) -> None:
    """The rids a filter's tags and metadata hold are listed once and remembered while no
    memory changes (recall._holding): the very next filtered recall after a new memory,
    a tag or metadata change, a forgetting, a restoring or an import sees it, asked with
    and without a project's view."""
    (tmp_path / ".git").mkdir()
    q = "how often is the aquarium cleaned?"
    for where in ({}, {"cwd": str(tmp_path)}):
        tag = f"fish-{len(where)}"
        by_tag = {"tags": [tag], **where}
        by_meta = {"where": {"tank": tag}, **where}
        assert recall_ids(memory, q, **by_tag) == [] and recall_ids(memory, q, **by_meta) == []
        fish = remember(memory, f"The aquarium of {tag} is cleaned every two weeks.", tags=[tag])
        assert recall_ids(memory, q, **by_tag) == [fish.id]
        memories.update(memory, p.UpdateParams(id=fish.id, metadata={"tank": tag}))
        assert recall_ids(memory, q, **by_meta) == [fish.id]
        memories.update(memory, p.UpdateParams(id=fish.id, tags=["other"], metadata={}))
        assert recall_ids(memory, q, **by_tag) == [] and recall_ids(memory, q, **by_meta) == []
        memories.update(memory, p.UpdateParams(id=fish.id, tags=[tag], metadata={"tank": tag}))
        assert recall_ids(memory, q, **by_tag) == [fish.id]
        assert recall_ids(memory, q, **by_meta) == [fish.id]
        memories.forget(memory, p.ForgetParams(id=fish.id))
        assert recall_ids(memory, q, **by_tag) == [] and recall_ids(memory, q, **by_meta) == []
        memories.restore(memory, p.RestoreParams(id=fish.id))
        assert recall_ids(memory, q, **by_tag) == [fish.id]
        line = {"content": f"The aquarium filter of {tag} is replaced monthly.", "tags": [tag]}
        imported = transfer.import_lines(
            memory, p.ImportParams(lines=[msgspec.json.encode(line).decode()])
        )
        assert set(recall_ids(memory, q, **by_tag)) == {fish.id, imported.lines[0].id}
        memories.forget(memory, p.ForgetParams(id=fish.id, hard=True))
        assert recall_ids(memory, q, **by_tag) == [imported.lines[0].id]

"""The validity rules (issue 9), through the engine on a real database and model:
- a forgotten (or deleted) superseder supersedes nothing; restoring it supersedes again;
- forgetting, deleting or expiring the middle of a chain closes it over the gap (issue 24);
- a conflict with a forgotten entry is no conflict;
- a supersession chain has one head: superseding an already superseded entry is refused,
  naming the head;
- update never makes two entries of one scope hold the same text.
"""

from __future__ import annotations

from typing import Any

import pytest

from enyal_daemon.errors import Conflict
from enyal_daemon.service.memory import graph, memories, validity
from enyal_daemon.service.memory import recall as recall_verb
from enyal_daemon.service.upkeep import health
from enyal_protocol import wire as p


def add(memory: Any, content: str, **kw: Any) -> str:
    kw.setdefault("scope", "global")
    return memories.remember(memory, p.RememberParams(content=content, **kw)).id


def top_ids(memory: Any, query: str, **kw: Any) -> list[str]:
    params = p.RecallParams(query=query, min_confidence=0, **kw)
    return [h.id for h in recall_verb.recall(memory, params).results]


def forget(memory: Any, entry: str, hard: bool = False) -> None:
    memories.forget(memory, p.ForgetParams(id=entry, hard=hard))


@pytest.mark.parametrize("hard", [False, True])
def test_a_forgotten_superseder_supersedes_nothing(memory: Any, hard: bool) -> None:
    old = add(memory, "We deploy with ArgoCD.")
    new = add(memory, "We deploy with Flux.", supersedes=[old])
    assert old not in top_ids(memory, "how do we deploy?")
    forget(memory, new, hard=hard)
    assert top_ids(memory, "how do we deploy?")[0] == old
    assert validity.history(memory, p.HistoryParams(id=old)).superseded_by == []
    assert health.health(memory, p.HealthParams()).superseded_count == 0
    if not hard:  # restoring it supersedes again
        memories.restore(memory, p.RestoreParams(id=new))
        assert top_ids(memory, "how do we deploy?")[0] == new
        assert old not in top_ids(memory, "how do we deploy?")
        history = validity.history(memory, p.HistoryParams(id=old))
        assert [e.id for e in history.superseded_by] == [new]


@pytest.mark.parametrize("hard", [False, True])
def test_forgetting_the_middle_of_a_chain_closes_it_over_the_gap(memory: Any, hard: bool) -> None:
    """Issue 24.2: A <- B <- C, forget B: C supersedes what B superseded, so A stays
    superseded (recall hides it, health counts it), soft or hard."""
    v1 = add(memory, "The minimum Python version is 3.11.")
    v2 = add(memory, "The minimum Python version is 3.12.", supersedes=[v1])
    v3 = add(memory, "The minimum Python version is 3.13.", supersedes=[v2])
    forget(memory, v2, hard=hard)
    ranked = top_ids(memory, "minimum Python version")
    assert ranked[0] == v3 and v1 not in ranked
    shown = recall_verb.recall(
        memory,
        p.RecallParams(query="minimum Python version", min_confidence=0, exclude_superseded=False),
    ).results
    old = next(h for h in shown if h.id == v1)
    assert old.is_superseded and old.superseded_by == v3
    assert health.health(memory, p.HealthParams()).superseded_count == 1
    h1 = validity.history(memory, p.HistoryParams(id=v1))
    assert [e.id for e in h1.superseded_by] == [v3]
    h3 = validity.history(memory, p.HistoryParams(id=v3))
    # v3 still supersedes v2 (which holds no more) unless it is gone, and v1 past it
    assert [e.id for e in h3.supersedes] == ([v1] if hard else [v2, v1])


def test_restoring_the_middle_reopens_the_chain_as_it_was(memory: Any) -> None:
    v1 = add(memory, "The API listens on port 8000.")
    v2 = add(memory, "The API listens on port 8080.", supersedes=[v1])
    v3 = add(memory, "The API listens on port 9090.", supersedes=[v2])
    forget(memory, v2)
    memories.restore(memory, p.RestoreParams(id=v2))
    h1 = validity.history(memory, p.HistoryParams(id=v1))
    assert [e.id for e in h1.superseded_by] == [v2, v3]
    assert graph.edges(memory, p.EdgesParams(id=v3, direction="outgoing")).edges[0].target_id == v2
    assert len(graph.edges(memory, p.EdgesParams(id=v3, direction="outgoing")).edges) == 1
    assert health.health(memory, p.HealthParams()).superseded_count == 2


def test_forgetting_the_head_of_a_chain_brings_back_the_one_below(memory: Any) -> None:
    v1 = add(memory, "The API listens on port 8000.")
    v2 = add(memory, "The API listens on port 8080.", supersedes=[v1])
    v3 = add(memory, "The API listens on port 9090.", supersedes=[v2])
    forget(memory, v3)
    assert validity.history(memory, p.HistoryParams(id=v2)).superseded_by == []
    assert [e.id for e in validity.history(memory, p.HistoryParams(id=v1)).superseded_by] == [v2]


def test_a_conflict_with_a_forgotten_entry_does_not_count(memory: Any) -> None:
    a = add(memory, "Use tabs for indentation in Go files.")
    b = add(memory, "Use spaces for indentation in Go files.")
    graph.link(memory, p.LinkParams(source_id=a, target_id=b, edge_type="conflicts_with"))
    hits = recall_verb.recall(memory, p.RecallParams(query="Go indentation", min_confidence=0))
    assert all(h.has_conflicts for h in hits.results)
    forget(memory, b)
    (hit,) = recall_verb.recall(
        memory, p.RecallParams(query="Go indentation", min_confidence=0)
    ).results
    assert hit.id == a and not hit.has_conflicts
    report = health.health(memory, p.HealthParams())
    assert report.conflicts_count == 0 and report.issues.conflicted_entries == []
    assert health.review(memory, p.ReviewParams(kind="conflicted")).conflicted == []


def test_superseding_an_already_superseded_entry_is_refused_naming_the_head(
    memory: Any,
) -> None:
    v1 = add(memory, "Python 3.10 is the minimum version.")
    v2 = add(memory, "Python 3.11 is the minimum version.", supersedes=[v1])
    v3 = add(memory, "Python 3.12 is the minimum version.", supersedes=[v2])
    before = memory.reader().execute("SELECT count(*) FROM context_entries").fetchone()[0]
    with pytest.raises(Conflict) as err:
        add(memory, "Python 3.13 is the minimum version.", supersedes=[v1])
    assert v2 in err.value.message and v3 in err.value.message
    assert err.value.data == {"superseded_by": v2, "head": v3}
    # Nothing was stored: the edge fails the whole remember.
    after = memory.reader().execute("SELECT count(*) FROM context_entries").fetchone()[0]
    assert after == before
    other = add(memory, "Python support is decided per service.")
    with pytest.raises(Conflict):
        graph.link(memory, p.LinkParams(source_id=other, target_id=v2, edge_type="supersedes"))
    # Once the superseder is forgotten, the entry is a head again and may be superseded.
    forget(memory, v3)
    add(memory, "Python 3.13 is the minimum version.", supersedes=[v2])


def test_update_cannot_copy_another_entrys_text_into_its_scope(memory: Any) -> None:
    a = add(memory, "Redis holds the session cache.")
    b = add(memory, "Memcached holds the page cache.")
    versions_before = validity.history(memory, p.HistoryParams(id=b)).versions
    with pytest.raises(Conflict) as err:
        memories.update(memory, p.UpdateParams(id=b, content="Redis holds the session cache."))
    assert a in err.value.message
    assert memories.get(memory, p.GetParams(id=b)).content == "Memcached holds the page cache."
    assert validity.history(memory, p.HistoryParams(id=b)).versions == versions_before
    # The same text in another scope is another memory, as with remember.
    c = add(memory, "Postgres holds the orders.", scope="project", scope_path="/srv/shop")
    memories.update(memory, p.UpdateParams(id=c, content="Redis holds the session cache."))


def test_the_middle_of_a_chain_expiring_closes_it_too(memory: Any) -> None:
    import functools

    v1 = add(memory, "The minimum Python version is 3.11.")
    v2 = add(memory, "The minimum Python version is 3.12.", supersedes=[v1], ttl="1h")
    v3 = add(memory, "The minimum Python version is 3.13.", supersedes=[v2])
    later = "2999-01-01T00:00:00.000000Z"  # past the ttl: the sweep of that moment deletes v2
    assert memory.write(functools.partial(memory.sweep_on, now=later)) == 1
    assert [e.id for e in validity.history(memory, p.HistoryParams(id=v1)).superseded_by] == [v3]
    assert health.health(memory, p.HealthParams()).superseded_count == 1


def test_closing_and_reopening_a_chain_are_published_as_changes(memory: Any) -> None:
    from enyal_daemon.service.core.changes import Filter

    v1 = add(memory, "The API listens on port 8000.")
    v2 = add(memory, "The API listens on port 8080.", supersedes=[v1])
    v3 = add(memory, "The API listens on port 9090.", supersedes=[v2])
    sub = memory.changes.subscribe(Filter(None, None, False, None, frozenset()), lambda: None)
    forget(memory, v2)
    memories.restore(memory, p.RestoreParams(id=v2))
    seen = [(c.kind, c.id) for c in sub.take()[0] if c.edge_type == "supersedes"]
    assert seen == [("linked", v3), ("superseded", v1), ("unlinked", v3), ("unlinked", v1)]

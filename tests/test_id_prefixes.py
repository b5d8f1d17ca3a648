"""Ids may be abbreviated, as git hashes are (issue 9): a unique prefix of 4 characters or
more names the entry in every method that takes an id; an ambiguous one is an error
listing the candidates. Forgetting twice changes nothing the second time."""

from __future__ import annotations

from typing import Any

import pytest

from enyal_daemon.errors import InvalidValue, NotFound
from enyal_daemon.service.memory import graph, memories, validity
from enyal_daemon.service.upkeep import transfer
from enyal_protocol import wire as p


def load(memory: Any, ids: list[str]) -> None:
    lines = [
        f'{{"id": "{i}", "content": "Memory number {n} about ports."}}' for n, i in enumerate(ids)
    ]
    assert transfer.import_lines(memory, p.ImportParams(lines=lines)).stored == len(ids)


def test_a_unique_prefix_names_the_entry_everywhere(memory: Any) -> None:
    load(memory, ["ac45a860-aaaa", "ac45b111-bbbb", "f00dcafe-cccc"])
    assert memories.get(memory, p.GetParams(id="f00d")).id == "f00dcafe-cccc"
    assert memories.get(memory, p.GetParams(id="ac45a")).id == "ac45a860-aaaa"
    updated = memories.update(memory, p.UpdateParams(id="ac45a8", confidence=0.5))
    assert (updated.id, updated.confidence) == ("ac45a860-aaaa", 0.5)
    edge = graph.link(
        memory, p.LinkParams(source_id="ac45b", target_id="f00dc", edge_type="depends_on")
    )
    assert (edge.source_id, edge.target_id) == ("ac45b111-bbbb", "f00dcafe-cccc")
    assert [e.id for e in graph.edges(memory, p.EdgesParams(id="f00d")).edges] == [edge.id]
    impact = graph.impact(memory, p.ImpactParams(id="f00d"))
    assert [e.id for e in impact.direct] == ["ac45b111-bbbb"]
    assert validity.history(memory, p.HistoryParams(id="ac45a")).id == "ac45a860-aaaa"
    removed = graph.unlink(
        memory, p.UnlinkParams(source_id="ac45b", target_id="f00d", edge_type="depends_on")
    )
    assert removed.id == edge.id
    gone = memories.forget(memory, p.ForgetParams(id="ac45a"))
    assert (gone.id, gone.action, gone.changed) == ("ac45a860-aaaa", "deprecated", True)
    assert memories.restore(memory, p.RestoreParams(id="ac45a")).id == "ac45a860-aaaa"


def test_ambiguous_short_and_unknown_prefixes(memory: Any) -> None:
    load(memory, ["ac45a860-aaaa", "ac45b111-bbbb"])
    with pytest.raises(InvalidValue) as err:
        memories.get(memory, p.GetParams(id="ac45"))
    assert "ambiguous" in err.value.message
    assert err.value.data == {"matches": ["ac45a860-aaaa", "ac45b111-bbbb"]}
    with pytest.raises(NotFound):
        memories.get(memory, p.GetParams(id="ac4"))  # under 4 characters: no prefix lookup
    with pytest.raises(NotFound):
        memories.get(memory, p.GetParams(id="beef"))


def test_forgetting_twice_changes_nothing_the_second_time(memory: Any) -> None:
    load(memory, ["e1-forget-me"])
    first = memories.forget(memory, p.ForgetParams(id="e1-forget-me"))
    second = memories.forget(memory, p.ForgetParams(id="e1-forget-me"))
    assert first.changed and not second.changed
    changes = [v.change_type for v in validity.history(memory, p.HistoryParams(id="e1-f")).versions]
    assert changes == ["forgotten", "created"]

"""A recall looks its hits' validity (supersession, conflicts) and cited files up only in
a store that holds such an edge or any cited file (issue 30): most hold neither, and a
recall spent three statements finding nothing. What the store holds is kept while no
write moves its version, so an edge linked or a file cited after a recall counts in the
next one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.index import keywords
from enyal_daemon.service.memory import graph, memories
from enyal_daemon.service.memory import recall as recall_verb
from enyal_protocol import wire as p


def add(memory: Any, content: str) -> str:
    return memories.remember(memory, p.RememberParams(content=content, scope="global")).id


def shown(memory: Any, query: str) -> dict[str, p.Hit]:
    params = p.RecallParams(query=query, min_confidence=0, exclude_superseded=False)
    return {h.id: h for h in recall_verb.recall(memory, params).results}


def link(memory: Any, source: str, target: str, edge_type: str) -> None:
    params = p.LinkParams(source_id=source, target_id=target, edge_type=edge_type)
    graph.link(memory, params)


def test_a_store_without_such_edges_or_files_reads_neither_for_a_recall(memory: Any) -> None:
    old = add(memory, "We deploy the API with ArgoCD.")
    new = add(memory, "We deploy the API with Flux.")
    link(memory, new, old, "relates_to")  # an edge, but none validity reads
    shown(memory, "how do we deploy the API?")  # the store's kinds of edges, read once
    statements: list[str] = []
    memory.reader().exec_trace = lambda _cur, sql, _args: statements.append(sql) or True
    hits = shown(memory, "how do we deploy the API?")
    assert {old, new} <= hits.keys()
    assert not any("context_edges" in s or "context_sources" in s for s in statements)
    assert not any(h.is_superseded or h.has_conflicts for h in hits.values())


def test_an_edge_linked_after_a_recall_counts_in_the_next(memory: Any) -> None:
    old = add(memory, "We deploy the API with ArgoCD.")
    new = add(memory, "We deploy the API with Flux.")
    assert not shown(memory, "how do we deploy the API?")[old].has_conflicts
    link(memory, new, old, "conflicts_with")
    hits = shown(memory, "how do we deploy the API?")
    assert hits[old].has_conflicts and hits[new].has_conflicts
    third = add(memory, "We deploy the API with Helm charts.")
    link(memory, third, new, "supersedes")
    hits = shown(memory, "how do we deploy the API?")
    assert hits[new].is_superseded and hits[new].superseded_by == third
    assert not hits[old].is_superseded


def test_a_file_cited_after_a_recall_counts_in_the_next(memory: Any, tmp_path: Path) -> None:
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    cited = root / "deploy.md"
    cited.write_text("ArgoCD\n")
    add(memory, "We deploy the API with ArgoCD.")
    assert shown(memory, "how do we deploy the API?")
    params = p.RememberParams(
        content="Deploys of the API are described in deploy.md.",
        scope="global",
        source_type="file",
        source_ref=str(cited),
    )
    entry = memories.remember(memory, params).id
    cited.write_text("Flux\n")
    assert shown(memory, "how do we deploy the API?")[entry].source_changed


def test_nothing_is_kept_for_a_store_another_process_may_write(memory: Any) -> None:
    """The engine's remembered reads (what the store holds, its last write, a filter's
    rids, the brief's listings, keyword results) are kept while no write moves the store's
    version; a store this daemon cannot write may be written by another process, so there
    they are read every time (Engine._unwritten; the brief's listings and the keyword
    results were kept there too)."""
    reads: list[int] = []

    def read() -> int:
        reads.append(1)
        return len(reads)

    for cache in (memory.brief_listed, memory.held_rids, memory.last_writes):
        reads.clear()
        memory.read_only = True
        assert [cache.get("k", read), cache.get("k", read)] == [1, 2]
        memory.read_only = False
        assert [cache.get("k", read), cache.get("k", read)] == [3, 3]
    add(memory, "Zeppelin rollouts need a change ticket")
    searched: list[int] = []  # one a search run, not answered from what was kept

    def search() -> list[tuple[int, float]]:
        return memory.keyword_results.search(memory.reader(), memory.doc_counts, "zeppelin", 5)

    with pytest.MonkeyPatch.context() as patch:
        real = keywords._pulled_bm25
        patch.setattr(keywords, "_pulled_bm25", lambda *a: searched.append(0) or real(*a))
        memory.read_only = True
        search(), search()
        assert len(searched) == 2, "searched each time"
        memory.read_only = False
        searched.clear()
        search(), search()
        assert len(searched) == 1, "kept"

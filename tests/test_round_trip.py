"""Export → import → export is lossless (issue 9): entries, their histories, and the edges
that give them meaning, so recall answers the same questions the same way after."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from enyal_daemon.service.core.engine import Engine
from enyal_daemon.service.memory import graph, memories
from enyal_daemon.service.memory import recall as recall_verb
from enyal_daemon.service.upkeep import transfer
from enyal_protocol import wire as p


def export_lines(engine: Any) -> list[str]:
    """What `enyal export` writes, from the engine's own pages."""
    lines: list[str] = []
    after: int | None = 0
    while after is not None:
        page = transfer.export_page(engine, p.ExportParams(after=after, versions=True))
        lines += [msgspec.json.encode(e).decode() for e in page.entries]
        after = page.next
    after = 0
    while after is not None:
        page = transfer.export_page(engine, p.ExportParams(after=after, kind="edges"))
        lines += [msgspec.json.encode({"edge": e}).decode() for e in page.edges]
        after = page.next
    return lines


def top(engine: Any, query: str) -> list[str]:
    hits = recall_verb.recall(engine, p.RecallParams(query=query, min_confidence=0)).results
    return [h.content for h in hits]


def test_a_superseded_decision_stays_superseded_after_a_round_trip(
    memory: Any, embedder: Any, tmp_path: Path
) -> None:
    def add(content: str, **kw: Any) -> str:
        params = p.RememberParams(content=content, scope="global", **kw)
        return memories.remember(memory, params).id

    argo = add("We deploy with ArgoCD.")
    flux = add("We deploy with Flux.", supersedes=[argo])
    db = add("The staging database is stage-db-1.")
    memories.update(memory, p.UpdateParams(id=db, content="The staging database is stage-db-2."))
    svc = add("The billing service reads the staging database.", depends_on=[db])
    graph.link(
        memory,
        p.LinkParams(source_id=svc, target_id=flux, edge_type="relates_to", confidence=0.4),
    )
    gone = add("Releases are cut on Fridays.")
    memories.forget(memory, p.ForgetParams(id=gone))
    questions = ["how do we deploy?", "what is the staging database called?", "release day"]
    before = {q: top(memory, q) for q in questions}
    assert before["how do we deploy?"][0] == "We deploy with Flux."
    exported = export_lines(memory)

    header = json.dumps(
        {
            "enyal_export": p.EXPORT_FORMAT,
            "enyal_version": "0.1.0",
            "model_id": "all-MiniLM-L6-v2/onnx-int8",
            "exported_at": "2026-11-23T00:00:00Z",
            "entries": 5,
            "edges": 3,
        }
    )
    other = Engine(tmp_path / "other.db", embedder)
    try:
        result = transfer.import_lines(other, p.ImportParams(lines=[header, *exported]))
        assert (result.stored, result.existing, result.failed) == (8, 0, 0)
        assert sorted(export_lines(other)) == sorted(exported)
        assert {q: top(other, q) for q in questions} == before
        again = transfer.import_lines(other, p.ImportParams(lines=exported))
        assert (again.stored, again.existing, again.failed) == (0, 8, 0)
    finally:
        other.close()


def test_old_exports_still_import_and_newer_formats_are_refused(memory: Any) -> None:
    old = json.dumps({"id": "e1", "content": "Use ruff for linting.", "tags": ["lint"]})
    newer = json.dumps(
        {
            "enyal_export": p.EXPORT_FORMAT + 1,
            "enyal_version": "9.0",
            "model_id": "m",
            "exported_at": "2030-01-01T00:00:00Z",
            "entries": 0,
            "edges": 0,
        }
    )
    dangling = json.dumps(
        {
            "edge": {
                "id": "x1",
                "source_id": "e1",
                "target_id": "nowhere",
                "edge_type": "relates_to",
                "confidence": 1.0,
                "created_at": "2026-01-01T00:00:00Z",
                "metadata": {},
            }
        }
    )
    r = transfer.import_lines(memory, p.ImportParams(lines=[newer, old, dangling]))
    status = {line.line: (line.kind, line.status) for line in r.lines}
    assert status == {1: ("header", "failed"), 2: ("entry", "stored"), 3: ("edge", "failed")}
    assert "upgrade" in (r.lines[0].error or "")
    assert (r.stored, r.failed) == (1, 1)
    history = transfer.export_page(memory, p.ExportParams(versions=True)).entries[0].versions
    assert [v.change_type for v in history or []] == ["created"]

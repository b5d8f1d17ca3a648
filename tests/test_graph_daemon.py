"""The graph and validity methods through the real daemon and the real CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import pytest

from conftest import DaemonProc, run_cli
from enyal_client.transport import RpcError
from enyal_protocol import wire as p


def counts(d: DaemonProc) -> tuple[int, ...]:
    conn = apsw.Connection(str(d.paths.db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return tuple(
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("context_entries", "context_edges", "context_versions")
        )
    finally:
        conn.close()


def error_code(d: DaemonProc, method: str, params: dict[str, Any]) -> int:
    with pytest.raises(RpcError) as info:
        d.call(method, params)
    return info.value.code


def test_graph_bad_input_is_refused_and_changes_nothing(daemon: DaemonProc) -> None:
    a = daemon.call("remember", {"content": "graph node a", "scope": "global"})["id"]
    b = daemon.call("remember", {"content": "graph node b", "scope": "global"})["id"]
    daemon.call("link", {"source_id": a, "target_id": b, "edge_type": "depends_on"})
    before = counts(daemon)
    cases: list[tuple[str, dict[str, Any], int]] = [
        ("link", {"source_id": a, "target_id": b, "edge_type": "likes"}, p.INVALID_PARAMS),
        ("link", {"source_id": a, "target_id": a, "edge_type": "relates_to"}, p.INVALID_VALUE),
        ("link", {"source_id": a, "target_id": "nope", "edge_type": "relates_to"}, p.NOT_FOUND),
        ("link", {"source_id": a, "target_id": b, "edge_type": "depends_on"}, p.CONFLICT),
        (
            "link",
            {"source_id": a, "target_id": b, "edge_type": "relates_to", "confidence": 2},
            p.INVALID_PARAMS,
        ),
        ("unlink", {"source_id": b, "target_id": a, "edge_type": "depends_on"}, p.NOT_FOUND),
        ("edges", {"id": "nope"}, p.NOT_FOUND),
        ("edges", {"id": a, "direction": "sideways"}, p.INVALID_PARAMS),
        ("traverse", {"id": a, "depth": 0}, p.INVALID_PARAMS),
        ("traverse", {"id": a, "depth": 5}, p.INVALID_PARAMS),
        ("traverse", {}, p.INVALID_VALUE),
        ("traverse", {"id": "nope"}, p.NOT_FOUND),
        ("traverse", {"id": a, "edge_types": ["likes"]}, p.INVALID_PARAMS),
        ("impact", {"id": "nope"}, p.NOT_FOUND),
        ("history", {"id": "nope"}, p.NOT_FOUND),
        ("restore", {"id": a, "version": 99}, p.NOT_FOUND),
        ("recall", {"query": "node", "as_of": "last tuesday"}, p.INVALID_VALUE),
        ("recall", {"query": "node", "as_of": "2026-13-45"}, p.INVALID_VALUE),
        ("remember", {"content": "c", "scope": "global", "supersedes": ["nope"]}, p.NOT_FOUND),
        ("remember", {"content": "c", "scope": "global", "depends_on": [a, "nope"]}, p.NOT_FOUND),
        ("health", {"stale_days": 0}, p.INVALID_PARAMS),
        ("analytics", {"event_type": "delete"}, p.INVALID_PARAMS),
    ]
    got = [(m, error_code(daemon, m, params)) for m, params, _ in cases]
    assert got == [(m, code) for m, _, code in cases]
    assert counts(daemon) == before
    assert daemon.alive()


def test_graph_methods_round_trip(daemon: DaemonProc) -> None:
    old = daemon.call("remember", {"content": "Builds use Make.", "scope": "global"})["id"]
    new = daemon.call(
        "remember",
        {"content": "Builds use Just, not Make.", "scope": "global", "supersedes": [old]},
    )
    assert [(e["target_id"], e["edge_type"]) for e in new["edges"]] == [(old, "supersedes")]
    hits = daemon.call("recall", {"query": "how do builds run?"})["results"]
    assert [h["id"] for h in hits] == [new["id"]]
    h = daemon.call("history", {"id": old})
    assert [e["id"] for e in h["superseded_by"]] == [new["id"]]
    t = daemon.call("traverse", {"id": new["id"], "depth": 1})
    assert [n["entry"]["id"] for n in t["nodes"]] == [old]
    assert daemon.call("stats")["edges_by_type"] == {"supersedes": 1}
    health = daemon.call("health")
    assert health["superseded_count"] == 1 and health["active_entries"] == 2


@pytest.mark.usefixtures("autostarted")
def test_graph_cli_verbs() -> None:
    def cli(*args: str) -> Any:
        r = run_cli(*args, "--json")
        assert r.code == 0, r.err
        return r.json()

    a = cli("remember", "The queue is RabbitMQ.", "--scope", "global")["id"]
    b = cli("remember", "Workers consume from the queue.", "--scope", "global", "--depends-on", a)[
        "id"
    ]
    e = cli("link", b, a, "--type", "relates_to", "--confidence", "0.9")
    assert (e["source_id"], e["target_id"], e["edge_type"]) == (b, a, "relates_to")
    assert len(cli("edges", a)["edges"]) == 2
    assert [
        n["entry"]["id"]
        for n in cli("traverse", b, "--depth", "1", "--type", "depends_on")["nodes"]
    ] == [a]
    assert [
        n["entry"]["id"]
        for n in cli("traverse", "--query", "RabbitMQ queue", "--direction", "incoming")["nodes"]
    ] == [b]
    assert [x["id"] for x in cli("impact", a)["direct"]] == [b]
    cli("update", a, "--content", "The queue is Kafka.")
    versions = cli("history", a)["versions"]
    assert [v["change_type"] for v in versions] == ["updated", "created"]
    assert cli("restore", a, "--version", "1")["content"] == "The queue is RabbitMQ."
    assert cli("unlink", b, a, "--type", "relates_to")["edge_type"] == "relates_to"
    assert cli("health")["active_entries"] == 2
    assert cli("review", "--kind", "orphan")["orphan"] == []
    cli("recall", "queue")
    assert cli("analytics", "--type", "recall")["summary"]["by_type"]["recall"] >= 1
    as_of = cli("recall", "which queue", "--as-of", versions[-1]["changed_at"])["results"]
    assert as_of[0]["content"] == "The queue is RabbitMQ."
    bad = run_cli("traverse", a, "--depth", "9")
    assert bad.code == 2 and "--depth: must be 1–4" in bad.err  # argparse, from the protocol
    # A chain's forgotten middle stays in the head's history, said to be forgotten.
    mid = cli("remember", "The queue is Pulsar.", "--scope", "global", "--supersedes", a)["id"]
    head = cli("remember", "The queue is NATS.", "--scope", "global", "--supersedes", mid)["id"]
    cli("forget", mid)
    chain = run_cli("history", head).out.splitlines()
    assert [ln.endswith("(forgotten)") for ln in chain if ln.startswith("supersedes")] == [
        True,  # the middle, forgotten
        False,  # the oldest, superseded over the gap
    ]
    assert run_cli("link", a, b, "--type", "likes").code == 2


def test_orphans_are_memories_not_a_files_mirrors_or_the_days_log(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    """A chunk mirrored from an indexed file follows its file and the day's log is a
    record of the day: neither is a memory left unlinked, so review and health leave
    them out of the orphans (a newcomer's review listed every chunk of CLAUDE.md)."""
    notes = tmp_path / "CLAUDE.md"
    notes.write_text("# Build\n\nRun make.\n\n# Tests\n\nRun pytest -n 2.\n")
    assert daemon.call("index", {"paths": [str(notes)]})["chunks_added"] == 2
    mirrors = {
        h["id"]
        for h in daemon.call("recall", {"query": "Run make", "limit": 50})["results"]
        if "Run make" in h["content"] or "pytest -n 2" in h["content"]
    }
    log = daemon.call("log_append", {"text": "tried the orphan listing", "cwd": str(tmp_path)})[
        "id"
    ]
    plain = daemon.call(
        "remember", {"content": "An unlinked fact about orphans", "scope": "global"}
    )
    orphans = {e["id"] for e in daemon.call("review", {"kind": "orphan", "limit": 100})["orphan"]}
    assert plain["id"] in orphans
    assert len(mirrors) == 2 and not mirrors & orphans and log not in orphans, orphans
    listed = set(daemon.call("health", {})["issues"]["orphan_entries"])
    assert plain["id"] in listed and not (mirrors | {log}) & listed

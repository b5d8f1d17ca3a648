"""Case 5: export → import → export through the daemon's methods.

A store with every kind of thing a user makes (types, scopes, tags, metadata, updates
and reverts that make version histories, supersedes/depends_on/relates_to/conflicts_with
edges, an auto-link, a forgotten and a deleted entry, access counts) is exported as the
export format 2 (a header line, entries with `versions`, then edges), imported into a
fresh home with `import`, and exported again: the two must hold the same lines, and the
same recall queries (plus one as of an earlier time) must give the same ids in the same
order. A second import of the same lines must store nothing.
"""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from enyal_protocol import wire as p

from .harness import (
    Call,
    Daemon,
    Row,
    canonical,
    check_db,
    export_edges,
    export_entries,
    home_env,
    log,
    logged_faults,
)

BATCH = 200
QUERIES = [
    "how do we deploy?",
    "which database do we use?",
    "what linter and formatter?",
    "how are errors logged?",
    "testing conventions",
    "what does the billing service depend on",
    "release schedule",
]


def export_lines(call: Call, status: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The export format 2, as `enyal export` writes it: (header, the other lines)."""
    entries = export_entries(call, versions=True)
    edges = export_edges(call)
    header = {
        "enyal_export": p.EXPORT_FORMAT,
        "enyal_version": status["version"],
        "model_id": status["model"]["id"],
        "exported_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "entries": len(entries),
        "edges": len(edges),
    }
    lines = [json.dumps(e, ensure_ascii=False) for e in entries]
    lines += [json.dumps({"edge": e}, ensure_ascii=False) for e in edges]
    return header, lines


def build(d: Daemon, root: Path, rng: random.Random) -> str:
    """Fill the store; returns a time between the first writes and the later changes."""
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()

    def add(content: str, **kw: Any) -> str:
        params = {"content": content, "scope": "global", **kw}
        return str(d.call("remember", params)["id"])

    argo = add("We deploy with ArgoCD.", content_type="decision", tags=["deploy"])
    db = add("The staging database is stage-db-1.", tags=["db", "staging"], confidence=0.9)
    pg = add("The primary database is PostgreSQL 16.", metadata={"source": {"doc": "ADR-7"}})
    lint = add(
        "Lint with ruff, format with ruff format.",
        content_type="convention",
        scope="project",
        cwd=str(project / "src"),
    )
    logs = add(
        "Errors are logged as JSON lines with a request id.",
        content_type="convention",
        scope="workspace",
        cwd=str(project),
    )
    tests = add(
        "Tests for this module use the db fixture — never the real database.",
        content_type="pattern",
        scope="file",
        scope_path=str(project / "src" / "store.py"),
        source_type="file",
        source_ref="src/store.py:12",
    )
    pref = add(
        "The user prefers short commit messages, in English 🇬🇧.",
        content_type="preference",
        source_type="conversation",
    )
    friday = add("Releases are cut on Fridays.", content_type="decision")
    tmp = add("A scratch note that will be deleted for good.")
    filler = [
        add(f"Service {name} owns the {what} and pages {team}.", tags=["services"])
        for name, what, team in [
            ("billing", "invoices", "payments"),
            ("auth", "sessions", "identity"),
            ("search", "indexes", "discovery"),
            ("mailer", "outgoing email", "growth"),
        ]
    ]
    time.sleep(0.05)
    between = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    time.sleep(0.05)
    # Histories: updates, a forget and a restore, a revert.
    d.call("update", {"id": db, "content": "The staging database is stage-db-2."})
    d.call("update", {"id": db, "confidence": 0.8, "tags": ["db", "staging", "moved"]})
    d.call("update", {"id": pg, "metadata": {"source": {"doc": "ADR-9"}, "checked": True}})
    d.call("update", {"id": pref, "content_type": "preference", "confidence": 0.7})
    d.call("forget", {"id": lint})
    d.call("restore", {"id": lint})
    d.call("update", {"id": logs, "content": "Errors are logged as JSON lines."})
    d.call("restore", {"id": logs, "version": 1})
    # Edges, made both ways: with remember's lists and with link.
    flux = add("We deploy with Flux, not ArgoCD.", content_type="decision", supersedes=[argo])
    billing = add(
        "The billing service reads the staging database.", depends_on=[db], relates_to=[pg]
    )
    d.call("link", {"source_id": billing, "target_id": flux, "edge_type": "relates_to",
                    "confidence": 0.4, "metadata": {"why": "deploys billing"}})  # fmt: skip
    d.call("link", {"source_id": filler[0], "target_id": db, "edge_type": "depends_on"})
    monday = add("Releases are cut on Mondays.", content_type="decision")
    d.call("link", {"source_id": monday, "target_id": friday, "edge_type": "conflicts_with"})
    add("Deploys use Flux and happen through pull requests.", auto_link=True,
        auto_link_threshold=0.3)  # fmt: skip
    d.call("link", {"source_id": tests, "target_id": tmp, "edge_type": "relates_to"})
    d.call("forget", {"id": friday})
    d.call("forget", {"id": tmp, "hard": True})  # gone, with its edge
    # Access counts: recalls, then flushed (analytics writes the buffered counts).
    for q in rng.sample(QUERIES, 3):
        d.call("recall", {"query": q, "limit": 5})
    d.call("analytics", {"limit": 1})
    return between


def ranked(d: Daemon, params: dict[str, Any]) -> list[str]:
    ids = [h["id"] for h in d.call("recall", params)["results"]]
    d.call("analytics", {"limit": 1})  # flush the access counts this recall made
    return ids


def run(row: Row, root: Path, rng: random.Random) -> None:
    a = Daemon(home_env(root / "home-a"), root / "daemon-a.log").start()
    b: Daemon | None = None
    try:
        between = build(a, root, rng)
        header1, lines1 = export_lines(a.call, a.call("status", {}))
        b = Daemon(home_env(root / "home-b"), root / "daemon-b.log").start()
        file = [json.dumps(header1), *lines1]
        stored = failed = 0
        for start in range(0, len(file), BATCH):
            res = b.call("import", {"lines": file[start : start + BATCH], "first_line": start + 1})
            stored += res["stored"]
            failed += res["failed"]
            for line in res["lines"]:
                if line["status"] == "failed":
                    row.problem("lost", f"import line {line['line']} failed: {line['error']}")
                elif line["status"] == "existing":
                    row.problem("errors", f"import line {line['line']}: existing in a fresh home")
        row.acked = stored
        header2, lines2 = export_lines(b.call, b.call("status", {}))
        row.runs = len(lines1)
        for key in ("enyal_export", "enyal_version", "model_id", "entries", "edges"):
            if header1[key] != header2[key]:
                row.problem("lost", f"header {key}: {header1[key]!r} → {header2[key]!r}")
        c1 = [canonical(json.loads(x)) for x in lines1]
        c2 = [canonical(json.loads(x)) for x in lines2]
        missing, extra = set(c1) - set(c2), set(c2) - set(c1)
        for line in sorted(missing)[:10]:
            twin = next(
                (x for x in extra if json.loads(x).get("id") == json.loads(line).get("id")), ""
            )
            row.problem("lost", f"not the same after the round trip: {line[:300]} → {twin[:300]}")
        if len(missing) > 10:
            row.problem("lost", f"… and {len(missing) - 10} more lines")
        if extra and not missing:
            row.problem("errors", f"{len(extra)} lines appeared: {sorted(extra)[0][:200]}")
        same_order = c1 == c2
        # The same questions get the same answers, in the same order.
        mismatched = 0
        questions: list[dict[str, Any]] = [
            {"query": q, "limit": 10, "min_confidence": 0} for q in QUERIES
        ]
        questions += [
            {"query": "how do we deploy?", "as_of": between, "min_confidence": 0},
            {"query": "releases", "include_deprecated": True, "min_confidence": 0},
            {"query": "database", "exclude_superseded": False, "tags": ["db"]},
        ]
        for params in questions:
            want, got = ranked(a, params), ranked(b, params)
            if want != got:
                mismatched += 1
                row.problem("errors", f"recall {params}: {want} before, {got} after")
        # Importing the same file again stores nothing.
        again = b.call("import", {"lines": file[:BATCH]})
        if again["stored"] or again["failed"]:
            row.problem("errors", f"a second import stored {again['stored']}, "
                                  f"failed {again['failed']}")  # fmt: skip
        for problem in check_db(b.paths.db).problems:
            row.bad_integrity(problem)
        n_entries, n_edges = header1["entries"], header1["edges"]
        row.details["entries_with_access_counts"] = sum(
            1 for x in lines1 if json.loads(x).get("access_count")
        )
        row.note(
            f"{n_entries} entries ({sum(len(json.loads(x).get('versions') or []) for x in lines1)}"
            f" versions) + {n_edges} edges: "
            + ("identical lines, same order" if same_order and not missing else "")
            + ("identical modulo order" if not same_order and not missing else "")
            + (f"{len(missing)} lines differ" if missing else "")
            + f"; {len(questions) - mismatched}/{len(questions)} recalls rank the same ids"
            + "; re-import stores nothing"
        )
        log(f"[{row.case}] {len(lines1)} lines round-tripped, {len(missing)} differ")
    finally:
        for d in (a, b):
            if d is None:
                continue
            code = d.stop()
            if code != 0:
                row.problem("errors", f"SIGTERM: exit {code}")
            for fault in logged_faults(d.log_text()):
                row.problem("errors", fault)

"""The reliability suite (scripts/torture, issue 9) in its quick mode: kill -9 during
writes, 16 clients at once, malformed frames to the daemon and to enyal-mcp, a full and
a read-only disk (where the machine lets us mount a tmpfs), the export round trip, and
a hostile machine: another uid at our socket (where we can become one), connections
past a 256-descriptor limit, ENYAL_SOCKET naming a file or a folder.

It must exit 0, and its table must say that nothing was lost and nothing crashed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "torture"
COLUMNS = ["case", "runs", "acked writes", "lost", "errors", "crashes", "integrity", "notes"]
CASES = {
    "kill -9 during acknowledged writes",
    "16 clients × mixed ops",
    "malformed frames → daemon socket",
    "malformed lines → enyal-mcp stdio",
    "disk full (16 MiB tmpfs)",
    "read-only database (remount ro)",
    "export → import → export round trip",
    "another user's socket (uid nobody)",
    "connections past a 256-fd limit",
    "ENYAL_SOCKET at a file / a folder",
    "outside write lock → busy",
    "long paths and far dates → clear errors",
    "reply dropped → resend lands once",
}


def parse_table(out: str) -> list[dict[str, str]]:
    """The rows of the one markdown table on stdout, as {column: cell}."""
    lines = [line for line in out.splitlines() if line.startswith("|")]
    assert len(lines) >= 3, out

    def cells(line: str) -> list[str]:
        inner = line.strip()[1:-1]
        return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]

    assert cells(lines[0]) == COLUMNS, lines[0]
    assert set(lines[1]) <= set("|-: "), lines[1]
    rows = [dict(zip(COLUMNS, cells(line), strict=True)) for line in lines[2:]]
    return rows


def test_quick_torture_loses_nothing_and_nothing_crashes(tmp_path: Path) -> None:
    report = tmp_path / "torture.json"
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    tail = f"stdout:\n{run.stdout}\nstderr (end):\n{run.stderr[-6000:]}"
    rows = parse_table(run.stdout)
    assert {r["case"] for r in rows} == CASES, tail
    for row in rows:
        if row["integrity"] == "skipped":  # no tmpfs here (not root): said, not hidden
            assert row["notes"].startswith("skipped: "), row
            continue
        assert row["lost"] == "0", (row, tail)
        assert row["crashes"] == "0", (row, tail)
        assert row["errors"] == "0", (row, tail)
        assert row["integrity"] == "ok", (row, tail)
        assert int(row["runs"]) > 0, row
    assert run.returncode == 0, tail
    data = json.loads(report.read_text())
    assert data["passed"] is True and len(data["rows"]) == len(rows)

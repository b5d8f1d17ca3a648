"""The `enyal` CLI as a user runs it: a fresh home, the first command starts the daemon."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, run_cli

pytestmark = pytest.mark.usefixtures("autostarted")


def test_first_command_on_a_fresh_machine_starts_the_daemon(home: Path, tmp_path: Path) -> None:
    assert not home.exists()
    r = run_cli(
        "remember", "The build uses make, not ninja.", "--scope", "global", "--tag", "build"
    )
    assert r.code == 0, r.err
    assert r.out.startswith("remembered ")
    st = run_cli("status", "--json").json()
    assert st["db_path"] == str(home / "enyal.db") and st["entries"] == 1
    assert (home / "logs" / "enyal.log").exists()  # the auto-started daemon logs to a file


def test_every_verb_with_json(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "src").mkdir()
    r = run_cli(
        "remember",
        "Retries use exponential backoff with jitter.",
        "--type",
        "convention",
        "--tag",
        "http",
        "--tag",
        "resilience",
        "--json",
        cwd=proj,
    ).json()
    assert r["action"] == "created"
    entry = r["entry"]
    assert entry["scope_level"] == "project" and entry["scope_path"] == str(proj)
    assert entry["tags"] == ["http", "resilience"]
    eid = r["id"]

    hits = run_cli("--json", "recall", "how do we retry failed requests?", cwd=proj).json()[
        "results"
    ]
    assert hits[0]["id"] == eid and hits[0]["tags"] == ["http", "resilience"]
    assert {"score", "semantic", "keyword", "recency", "effective_confidence"} <= hits[0].keys()

    scoped = run_cli(
        "recall", "retry policy", "--path", str(proj / "src" / "client.py"), "--json"
    ).json()
    assert scoped["results"][0]["id"] == eid and scoped["results"][0]["scope_weight"] == 0.9
    assert [s["level"] for s in scoped["scopes"]] == ["file", "project", "workspace", "global"]

    assert run_cli("get", eid, "--json").json()["content"].startswith("Retries")
    upd = run_cli("update", eid, "--confidence", "0.6", "--tag", "http", "--json").json()
    assert upd["confidence"] == 0.6 and upd["tags"] == ["http"]
    assert run_cli("forget", eid, "--json").json() == {"id": eid, "action": "deprecated"}
    assert run_cli("recall", "retry", "--json", cwd=proj).json()["results"] == []
    assert run_cli("restore", eid, "--json").json()["is_deprecated"] is False
    stats = run_cli("stats", "--json").json()
    assert stats["total"] == 1 and stats["by_type"]["convention"] == 1
    assert run_cli("forget", eid, "--hard", "--json").json()["action"] == "deleted"
    assert run_cli("stats", "--json").json()["total"] == 0


def test_text_output_is_readable() -> None:
    eid = run_cli(
        "remember",
        "Prefer dataclasses over dicts for records.",
        "--scope",
        "global",
        "--tag",
        "style",
        "--json",
    ).json()["id"]
    out = run_cli("recall", "records as dataclasses").out
    assert "1. Prefer dataclasses over dicts for records." in out and "tags: style" in out
    assert eid in run_cli("get", eid).out
    assert "entries: 1" in run_cli("stats").out
    assert (
        "no memories matched"
        in run_cli("recall", "zebra migration routes", "--min-confidence", "1").out
    )


def test_import_and_export(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(
        '{"content": "alpha memory", "tags": ["a"]}\n'
        "this line is not json\n"
        '{"content": "beta memory", "content_type": "decision"}\n',
        encoding="utf-8",
    )
    r = run_cli("import", str(src), "--json")
    assert r.code == 1  # a failed line makes the import exit non-zero, the good lines stay
    body = r.json()
    assert (body["stored"], body["existing"], body["failed"]) == (2, 0, 1)
    assert body["failures"][0]["line"] == 2
    out = tmp_path / "out.jsonl"
    done = run_cli("export", str(out), "--json").json()
    assert done == {"exported": 2, "edges": 0, "file": str(out), "format": "jsonl"}
    header, *lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert header["enyal_export"] == 2 and (header["entries"], header["edges"]) == (2, 0)
    assert header["model_id"] == run_cli("status", "--json").json()["model"]["id"]
    assert sorted(x["content"] for x in lines) == ["alpha memory", "beta memory"]
    assert set(lines[0]) >= {"id", "content_type", "scope_level", "tags", "metadata", "created_at"}
    assert [v["change_type"] for v in lines[0]["versions"]] == ["created"]
    stdout_header, *stdout_lines = map(json.loads, run_cli("export").out.splitlines())
    assert stdout_lines == lines
    assert {**stdout_header, "exported_at": None} == {**header, "exported_at": None}
    again = run_cli("import", "-", "--json", input=out.read_text(encoding="utf-8")).json()
    assert (again["stored"], again["existing"], again["failed"]) == (0, 2, 0)


def test_errors_and_exit_codes(tmp_path: Path) -> None:
    missing = run_cli("get", "no-such-id")
    assert missing.code == 1 and "no entry with id" in missing.err and missing.out == ""
    as_json = run_cli("get", "no-such-id", "--json")
    assert as_json.code == 1 and as_json.json()["error"]["code"] == -32001
    assert run_cli("recall", "x", "--limit", "0").code == 2
    assert run_cli("remember", "x", "--type", "opinion").code == 2
    assert run_cli("remember", "x", "--metadata", "[1]").code == 2
    assert run_cli("frobnicate").code == 2
    assert run_cli("import", str(tmp_path / "nope.jsonl")).code == 1
    empty = run_cli("remember", "   ", "--scope", "global")  # refused by the daemon
    assert empty.code == 2 and "content is empty" in empty.err
    big = run_cli("remember", "x" * 70000, "--scope", "global")
    # Too large is the caller's input, like empty: a usage error (issue 24 item 4).
    assert big.code == 2 and "the limit is 65536" in big.err
    assert run_cli("recall", "x", "--path", "/a.py", "--tag", "t").code == 2
    assert run_cli("stats", "--json").json()["total"] == 0


def test_export_into_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    src = tmp_path / "many.jsonl"
    src.write_text("".join(f'{{"content": "entry number {i}"}}\n' for i in range(600)))
    assert run_cli("import", str(src)).code == 0
    # 600 entries are far more than a pipe buffer holds: `head` closes the pipe mid-export.
    p = subprocess.run(
        f"{BIN / 'enyal'} export | head -n 1", shell=True, capture_output=True, text=True
    )
    assert p.stdout.count("\n") == 1 and "Traceback" not in p.stderr and p.stderr == ""


def test_remember_dash_reads_the_memory_from_stdin(tmp_path: Path) -> None:
    """`enyal remember -` stored the one-character memory "-" (found from outside): a dash
    means stdin, as for `import -`, for a text made by another command."""
    text = "The release checklist lives in docs/RELEASE.md.\nRun it before tagging."
    r = run_cli("remember", "-", "--scope", "global", "--json", input=text + "\n").json()
    assert r["entry"]["content"] == text
    empty = run_cli("remember", "-", "--scope", "global", input="  \n")
    assert empty.code == 2 and "nothing on stdin" in empty.err
    assert "-" not in [e["content"] for e in run_cli("list", "--json").json()["entries"]]

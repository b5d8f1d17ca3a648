"""Decay ranks, it does not hide; a result list ends where relevance ends; a score stays
within [0, 1]; plain recall says where a memory came from. Through a real daemon and the
real CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from daemon_support import RunningDaemon, isolated_env
from test_hooks import env_of, hook

# One answer among unrelated conventions (test_recall_weak asks of the same memories).
ANSWER = "The Python version we use is 3.12; 3.13 is not supported yet"
OTHERS = [
    "Use ruff for linting with a line length of 100",
    "Dependencies are pinned in requirements.lock",
    "The CI pipeline runs on GitHub Actions",
    "Code review needs two approvals before a merge",
    "Release notes are written in CHANGELOG.md",
    "The API returns errors as JSON problem documents",
]


def cli(d: RunningDaemon, *args: str, cwd: Path) -> Any:
    r = run_cli(*args, "--json", cwd=cwd, env=isolated_env(d.paths.home))
    assert r.code == 0, r.err
    return r.json()


def test_a_six_month_old_relevant_fact_is_still_found(d: RunningDaemon, tmp_path: Path) -> None:
    then = (datetime.now(UTC) - timedelta(days=183)).strftime("%Y-%m-%dT%H:%M:%SZ")
    old = {"content": "The staging cluster is named kestrel", "content_type": "fact"}
    line = json.dumps({**old, "created_at": then, "updated_at": then})
    (kestrel,) = (x["id"] for x in d.call("import", {"lines": [line]})["lines"])
    d.call("remember", {"content": "Lunch is ordered on Fridays", "cwd": str(tmp_path)})
    for flags in ((), ("--all",)):
        hits = cli(d, "recall", "what is the staging cluster called", *flags, cwd=tmp_path)
        assert hits["results"][0]["id"] == kestrel, flags
        # Its age still ranks it: its confidence is decayed, not zeroed.
        assert 0 < hits["results"][0]["effective_confidence"] < 0.3


def test_an_idle_store_still_ranks_its_newer_memory_first(d: RunningDaemon) -> None:
    """Two answers a year apart, the store left unwritten for two years since: asked now,
    the newer still ranks first, as it did when it was said. The older says it in words
    closer to the question; what put the newer first then was its recency, and recency
    compares memories with each other (it counts to the store's last write), while trust
    still decays by the asking time."""
    newer_at = datetime.now(UTC) - timedelta(days=2 * 365)
    said = {
        "older": (newer_at - timedelta(days=365), "We deploy the backend with Fabric scripts"),
        "newer": (newer_at, "We deploy the backend with Ansible playbooks"),
    }
    lines = [
        json.dumps({"id": key, "content": text, "created_at": at.strftime("%Y-%m-%dT%H:%M:%SZ")})
        for key, (at, text) in said.items()
    ]
    assert d.call("import", {"lines": lines})["stored"] == 2
    query = {"query": "how do we deploy the backend"}

    def hits(**asked: str) -> dict[str, Any]:
        found = d.call("recall", {**query, **asked})["results"]
        assert [h["id"] for h in found][:1] == ["newer"], found
        return {h["id"]: h for h in found}

    then = hits(asked_at=(newer_at + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert then["older"]["semantic"] > then["newer"]["semantic"]
    now = hits()
    assert now["newer"]["recency"] == pytest.approx(1.0) and now["older"]["recency"] < 0.001
    assert all(h["effective_confidence"] < 0.01 for h in now.values())


def test_the_list_ends_where_relevance_ends(d: RunningDaemon, tmp_path: Path) -> None:
    answer, others = ANSWER, OTHERS
    ids = {
        text: d.call("remember", {"content": text, "cwd": str(tmp_path)})["id"]
        for text in [answer, *others]
    }
    query = "which python version"
    every = cli(d, "recall", query, "--all", cwd=tmp_path)["results"]
    assert every[0]["id"] == ids[answer] and len(every) == len(ids)
    # What the floor of recall.floor alone lets through beneath the answer: the noise.
    above_floor = [h for h in every[1:] if max(h["semantic"], h["keyword"] ** 0.5) >= 0.2]
    assert above_floor, "the set must hold noise the absolute floor lets through"
    shown = cli(d, "recall", query, cwd=tmp_path)["results"]
    assert [h["id"] for h in shown] == [ids[answer]]
    # The daemon's min_relative alone ends it too; its default (0) keeps all.
    ends = d.call("recall", {"query": query, "cwd": str(tmp_path), "min_relative": 0.5})
    assert [h["id"] for h in ends["results"]] == [ids[answer]]
    kept = d.call("recall", {"query": query, "cwd": str(tmp_path)})
    assert len(kept["results"]) == len(ids)
    # The prompt hook sends recall.relative too: the agent is given the answer alone.
    prompt = {"cwd": str(tmp_path), "prompt": query, "hook_event_name": "UserPromptSubmit"}
    r = hook(env_of(d, tmp_path / "user"), "prompt-submit", prompt)
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert answer in context and not any(text in context for text in others)


def test_scores_stay_within_zero_and_one(d: RunningDaemon, project: Path) -> None:
    text = "Deploys go out with make deploy from the main branch"
    for importance in (5, 4, 3, 1):
        d.call(
            "remember",
            {
                "content": f"{text} (p{importance})",
                "importance": importance,
                "scope": "file",
                "scope_path": "Makefile",
                "cwd": str(project),
            },
        )
    for method, extra in (("recall", {}), ("recall_by_scope", {"file_path": "Makefile"})):
        params = {"query": f"{text} (p5)", "cwd": str(project), **extra}
        hits = d.call(method, params)["results"]
        assert len(hits) == 4
        assert all(0.0 <= h["score"] <= 1.0 for h in hits), [h["score"] for h in hits]
        # Importance still orders like hits: the most important first.
        assert hits[0]["importance"] == 5 and hits[-1]["importance"] == 1


def test_plain_recall_shows_provenance(d: RunningDaemon, tmp_path: Path) -> None:
    env = isolated_env(d.paths.home)
    made = run_cli(
        "remember",
        "The nightly job rotates the API keys at 02:00",
        "--source-type",
        "conversation",
        "--source-ref",
        "session 42",
        cwd=tmp_path,
        env=env,
    )
    assert made.code == 0, made.err
    r = run_cli("recall", "when are API keys rotated", cwd=tmp_path, env=env)
    assert r.code == 0, r.err
    assert "from: source conversation session 42; written by user" in r.out, r.out

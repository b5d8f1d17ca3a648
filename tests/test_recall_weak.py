"""Saying nothing when nothing fits (issue 31, item 3): a hit below the relevance answers
reach is marked `weak`; `drop_weak_only` (what the hooks send) turns a list of weak hits
only into no list, and the prompt hook then injects nothing. Through a real daemon and
the real hook command."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from daemon_support import RunningDaemon
from enyal_daemon.service.rules.ranking import WEAK_RELEVANCE
from test_hooks import env_of, hook
from test_recall_trust import ANSWER, OTHERS

ANSWERABLE = "which python version"
NOTHING_FITS = "how are secrets managed"  # no memory says anything of secrets
FLOORS = {"min_relevance": 0.2, "min_relative": 0.5}  # the CLI's and the hooks' defaults


def relevance(hit: dict[str, Any]) -> float:
    return max(hit["semantic"], hit["keyword"] ** 0.5)


def test_weak_only_lists_are_dropped_and_answers_kept(d: RunningDaemon, tmp_path: Path) -> None:
    ids = {
        text: d.call("remember", {"content": text, "cwd": str(tmp_path)})["id"]
        for text in [ANSWER, *OTHERS]
    }
    at = {"cwd": str(tmp_path), **FLOORS}

    def recall(query: str, **more: Any) -> list[dict[str, Any]]:
        hits: list[dict[str, Any]] = d.call("recall", {"query": query, **at, **more})["results"]
        return hits

    # The mark is the relevance the floors read, against one level.
    every = recall(ANSWERABLE, min_relevance=0.0, min_relative=0.0)
    assert len(every) == len(ids)
    assert all(h["weak"] == (relevance(h) < WEAK_RELEVANCE) for h in every)

    shown = recall(ANSWERABLE, drop_weak_only=True)
    assert shown[0]["id"] == ids[ANSWER] and not shown[0]["weak"]

    # The floors let a near miss through; it is weak, and so is everything else shown.
    noise = recall(NOTHING_FITS)
    assert noise, "the query must reach the absolute floor for this test to say anything"
    assert all(h["weak"] for h in noise), noise
    session = {"session_id": "s-weak"}
    assert recall(NOTHING_FITS, drop_weak_only=True, **session) == []
    # As of a moment too (ranked by meaning alone then).
    now = datetime.now(UTC).strftime("%Y-%m-%d")  # the end of today
    assert recall(NOTHING_FITS, as_of=now)
    assert recall(NOTHING_FITS, as_of=now, drop_weak_only=True) == []
    # Dropped before the session's record: what was not shown can be shown later.
    again = recall(NOTHING_FITS, **session)
    assert [h["id"] for h in again] == [h["id"] for h in noise]


def test_the_prompt_hook_injects_nothing_for_weak_only(
    d: RunningDaemon, project: Path, tmp_path: Path
) -> None:
    env = env_of(d, tmp_path / "user")
    d.call("remember", {"content": ANSWER, "cwd": str(project)})
    for text in OTHERS:
        d.call("remember", {"content": text, "cwd": str(project)})
    prompt = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
    }
    r = hook(env, "prompt-submit", {**prompt, "prompt": NOTHING_FITS})
    assert r.returncode == 0 and json.loads(r.stdout) == {}, r.stdout
    r = hook(env, "prompt-submit", {**prompt, "prompt": ANSWERABLE})
    assert r.returncode == 0, r.stderr
    assert "3.12" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]

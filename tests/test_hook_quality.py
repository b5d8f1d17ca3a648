"""The hook-quality set (scripts/eval_hooks, scripts/data/hook_events.jsonl) on a small
slice, through the real hook logic and a real daemon: a query window that cuts a long
prompt (issue 29) must not lose an answer that the whole prompt, asked with the same
params, finds. One daemon for the module, holding the slice's gold memories among the
first memories of the set."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from daemon_support import RunningDaemon, launch
from enyal_protocol.hooks.answer import answer

DATA = Path(__file__).resolve().parent.parent / "scripts" / "data"
CWD = "/home/dev/acme"  # as scripts/eval_hooks runs them
SLICE = 16  # dev prompt events, in the file's order: the first ones, not picked


def _jsonl(name: str) -> list[dict[str, Any]]:
    with (DATA / name).open() as f:
        return [json.loads(x) for x in f if x.strip()]


EVENTS = [e for e in _jsonl("hook_events.jsonl") if e["kind"] == "prompt" and e["split"] == "dev"]
EVENTS = EVENTS[:SLICE]


class Recording:
    """Keeps the ids each recall handed back (the hook renders only their first 8)."""

    def __init__(self, d: RunningDaemon) -> None:
        self.d = d
        self.ids: list[str] = []
        self.params: dict[str, Any] = {}

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = self.d.call(method, params)
        if method.startswith("recall"):
            self.params = params
            self.ids += [h["id"] for h in out["results"]]
        return out


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    gold = {g for e in EVENTS for g in e["gold"]}
    memories = _jsonl("agent_memories.jsonl")
    lines = [json.dumps(m) for m in memories if m["id"] in gold or int(m["id"][1:]) <= 80]
    d = launch(tmp_path_factory.mktemp("hookquality") / "home")
    try:
        assert d.call("import", {"lines": lines})["failed"] == 0
        yield d
    finally:
        d.stop()


def test_the_prompt_hook_keeps_what_the_whole_prompt_finds(store: RunningDaemon) -> None:
    lost, found = [], 0
    for e in EVENTS:
        prompt = e["input"]["prompt"]
        c = Recording(store)
        answer(c, "prompt-submit", {"prompt": prompt, "cwd": CWD})
        # The hook's own params, its query the whole prompt: what no window cut finds.
        whole = store.call("recall", {**c.params, "query": " ".join(prompt.split())})
        if not {h["id"] for h in whole["results"]} & set(e["gold"]):
            continue  # the whole prompt misses: nothing a window could lose
        found += 1
        if not set(c.ids) & set(e["gold"]):
            lost.append(e["eid"])
    assert found, "the whole prompt finds no answer in the slice: the test says nothing"
    assert not lost, f"the hook's query lost what the whole prompt finds: {lost}"

"""Issue 29's hook-quality set (scripts/data/hook_events) scored through the real hook
logic: an Engine in this process on its own home, ../data/agent_memories.jsonl imported
by the `import` method (embedded as users' memories are), then each event answered by
enyal_protocol.hooks.answer through the hook endpoint's in-process Caller (every daemon
method a frame through the Dispatcher, as the MCP and HTTP paths run it).

What an event found is read from the recall it made (its results, as rendered), mapped
back to the set's memory ids. Per event: the ids injected in order; per kind and split:
hit@1 / hit@k (k = what the hook injects, at most its limit) of a gold memory, and for
events with no gold (noise) how many memories were injected anyway.
"""

from __future__ import annotations

import json
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data"
EVENTS = DATA / "hook_events" / "events.jsonl"
VERB = {
    "prompt": "prompt-submit",
    "noise": "prompt-submit",
    "file": "pre-tool-use",
    "failure": "post-tool-use",
}


def events(split: str = "", kinds: set[str] | None = None) -> list[dict[str, Any]]:
    out = [json.loads(line) for line in EVENTS.read_text().splitlines()]
    return [
        e for e in out if (not split or e["split"] == split) and (not kinds or e["kind"] in kinds)
    ]


def memory_lines() -> list[str]:
    return (DATA / "agent_memories.jsonl").read_text().splitlines()


def small_slice(n_events: int = 24) -> tuple[list[dict[str, Any]], list[str]]:
    """A test's slice: the first n_events dev prompts with a pasted-in tail (those a
    query window would cut), every dev file, failure and noise event, and a store of
    their gold memories plus every 6th other one (~200: near misses stay in)."""
    evs = [e for e in events("dev", {"prompt"}) if len(e["input"]["prompt"]) > 150]
    evs = evs[:n_events] + events("dev", {"file", "failure", "noise"})
    gold = {g for e in evs for g in e["gold"]}
    lines = [
        line
        for i, line in enumerate(memory_lines())
        if json.loads(line)["id"] in gold or i % 6 == 0
    ]
    return evs, lines


@dataclass
class Found:
    eid: str
    kind: str
    split: str
    gold: list[str]
    injected: list[str]

    @property
    def hit1(self) -> bool:
        return bool(self.injected[:1]) and self.injected[0] in self.gold

    @property
    def hit(self) -> bool:
        return any(i in self.gold for i in self.injected)


@dataclass
class Run:
    found: list[Found] = field(default_factory=list)

    def summary(self) -> dict[str, dict[str, float]]:
        groups: dict[str, list[Found]] = defaultdict(list)
        for f in self.found:
            groups[f"{f.kind}/{f.split}"].append(f)
        out = {}
        for key, fs in sorted(groups.items()):
            n = len(fs)
            if fs[0].kind == "noise":
                out[key] = {"n": n, "injected/event": sum(len(f.injected) for f in fs) / n}
            else:
                out[key] = {
                    "n": n,
                    "hit@1": sum(f.hit1 for f in fs) / n,
                    "hit@k": sum(f.hit for f in fs) / n,
                    "injected/event": sum(len(f.injected) for f in fs) / n,
                }
        return out


class Scorer:
    """One Engine on a temp home with the memory set imported; score() answers events."""

    def __init__(self, embedder: Any, home: Path, lines: list[str] | None = None) -> None:
        from benchlib import in_process
        from enyal_daemon.server.dispatch import Dispatcher
        from enyal_daemon.server.hook_http import InProcess
        from enyal_daemon.service.core.engine import Engine

        self.engine = Engine(home / "enyal.db", embedder)
        handlers = in_process.handlers(self.engine)
        self.pool = ThreadPoolExecutor(2, thread_name_prefix="enyal-req")
        self.caller = InProcess(Dispatcher(handlers, self.pool, self.engine.db_path))
        lines = memory_lines() if lines is None else lines
        self.by_id: dict[str, str] = {}
        for start in range(0, len(lines), 500):
            batch = lines[start : start + 500]
            got = self.caller.call("import", {"lines": batch, "first_line": start + 1})
            for line in got["lines"]:
                if line["id"]:
                    self.by_id[line["id"]] = json.loads(lines[line["line"] - 1])["id"]
        self.engine.flush_bookkeeping()
        self.calls = 0

    def score(self, evs: list[dict[str, Any]]) -> Run:
        from enyal_protocol.hooks.answer import answer

        outer = self

        class Seen:
            def __init__(self) -> None:
                self.ids: list[str] = []

            def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
                out: dict[str, Any] = outer.caller.call(method, params)
                if method in ("recall", "recall_by_scope"):
                    self.ids += [outer.by_id.get(h["id"], h["id"]) for h in out["results"]]
                return out

        run = Run()
        for e in evs:
            self.calls += 1
            seen = Seen()
            # A session of its own: nothing is left out as shown before.
            answer(seen, VERB[e["kind"]], {**e["input"], "session_id": f"q-{self.calls}"})
            run.found.append(Found(e["eid"], e["kind"], e["split"], e["gold"], seen.ids))
        return run

    def close(self) -> None:
        self.engine.close()
        self.pool.shutdown()

#!/usr/bin/env python3
"""Builds events.jsonl: hook events as Claude Code sends them, each with the memories of
../agent_memories.jsonl the hook should inject (issue 29's hook-quality set).

    python3 scripts/data/hook_events/build.py     # rewrites events.jsonl (deterministic)

Three kinds, each line {"eid", "kind", "split", "gold", "input"} (`input` the hook's JSON
minus session_id, which the scorer gives each event on its own):
  prompt   every question of ../agent_queries.jsonl (its gold, its dev/heldout split)
           as a user would type it to Claude Code: alone, or inside a longer message
           (a preamble, the question, a pasted snippet or a request for the form of the
           answer), the template chosen by a seeded draw, so a query window has real
           prompt text to cut.
  file     a Read or Edit of every path ../agent_memories.jsonl names; gold: the memories
           naming it. Split: a seeded draw, half each.
  noise    prompts nothing stored fits (small talk, general programming questions);
           gold [] so what the hook injects for them is noise.
  failure  a Bash command that failed (PostToolUseFailure: its command and `error` as
           Claude Code reports them, a log of several lines), written by hand in
           failures.jsonl for the memories that say what to do about an error (m088,
           m350, …); dev and heldout alternate.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
SEED = 29
CWD = "/home/user/acme"

PREAMBLES = [
    "",
    "",
    "Quick question before I push this branch. ",
    "I'm picking this up again after a week away and I don't remember what we settled on. ",
    "The reviewer on my PR asked about this and I want to answer correctly, so please check "
    "what we decided before and keep it short. ",
    "ok so ",
]
TAILS = [
    "",
    "",
    "?",
    " Please check the notes from earlier sessions first, then answer in two or three "
    "sentences; if it depends on the service, say which one.",
    "\n\nFor context, here is what I have right now:\n```\ndef handler(event, context):\n"
    "    payload = json.loads(event['body'])\n    return process(payload)\n```",
    "\n\nI already tried searching the repo but grep returns hundreds of hits, so I'd rather "
    "not guess. Thanks!",
]
NOISE = [
    "write me a haiku about autumn leaves",
    "what is 17 times 23",
    "explain the difference between a list and a tuple in Python",
    "thanks, that's all for now",
    "can you summarise what we just did in this session",
    "how does a binary search work, in general terms",
    "what's a good name for a variable holding a count of retries",
    "translate 'good morning' into French",
    "tell me a joke about compilers",
    "what year did the first moon landing happen",
    "rename this function to something clearer please",
    "yes, go ahead",
]
PATH = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.(?:py|ts|tsx|js|go|toml|yaml|yml|json|md|sql|sh|cfg|ini|rs))\b"
)


def main() -> None:
    rng = random.Random(SEED)
    queries = [json.loads(line) for line in (DATA / "agent_queries.jsonl").read_text().splitlines()]
    memories = [
        json.loads(line) for line in (DATA / "agent_memories.jsonl").read_text().splitlines()
    ]
    out = []
    for q in queries:
        text = q["query"]
        prompt = rng.choice(PREAMBLES) + text + rng.choice(TAILS)
        out.append(
            {
                "eid": f"p-{q['qid']}",
                "kind": "prompt",
                "split": q["split"],
                "gold": q["gold"],
                "input": {"hook_event_name": "UserPromptSubmit", "cwd": CWD, "prompt": prompt},
            }
        )
    named: dict[str, list[str]] = {}
    for m in memories:
        for path in sorted(set(PATH.findall(m["content"]))):
            named.setdefault(path, []).append(m["id"])
    for i, (path, ids) in enumerate(sorted(named.items())):
        tool = rng.choice(["Read", "Read", "Edit"])
        args = {"file_path": f"{CWD}/{path}"}
        if tool == "Edit":
            args |= {"old_string": "a", "new_string": "b"}
        out.append(
            {
                "eid": f"f-{i:03d}",
                "kind": "file",
                "split": rng.choice(["dev", "heldout"]),
                "gold": ids,
                "input": {
                    "hook_event_name": "PreToolUse",
                    "cwd": CWD,
                    "tool_name": tool,
                    "tool_input": args,
                },
            }
        )
    failures = [json.loads(line) for line in (HERE / "failures.jsonl").read_text().splitlines()]
    for i, f in enumerate(failures):
        out.append(
            {
                "eid": f"x-{i:03d}",
                "kind": "failure",
                "split": "dev" if i % 2 == 0 else "heldout",
                "gold": f["gold"],
                "input": {
                    "hook_event_name": "PostToolUseFailure",
                    "cwd": CWD,
                    "tool_name": "Bash",
                    "tool_input": {"command": f["command"]},
                    "error": f["error"],
                },
            }
        )
    for i, text in enumerate(NOISE):
        out.append(
            {
                "eid": f"n-{i:03d}",
                "kind": "noise",
                "split": "dev" if i % 2 == 0 else "heldout",
                "gold": [],
                "input": {"hook_event_name": "UserPromptSubmit", "cwd": CWD, "prompt": text},
            }
        )
    with (HERE / "events.jsonl").open("w") as f:
        for e in out:
            f.write(json.dumps(e) + "\n")
    print(f"{len(out)} events -> {HERE / 'events.jsonl'}")


if __name__ == "__main__":
    main()

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
           Claude Code reports them, a log of several lines), written by hand for the
           memories that say what to do about an error (m088, m350, …); dev and heldout
           alternate.
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
LOG = "Collecting dependencies\nResolving 143 packages\nDownloading metadata\n"
FAILURES = [  # (gold, command, error output)
    (
        ["m088"],
        "uv sync",
        "Exit code 1\n"
        + LOG
        + "error: No solution found when resolving dependencies:\n  Because pydantic==2.9.2 depends on pydantic-core==2.23.4 and you require pydantic-core==2.20.1, we can conclude that your requirements are unsatisfiable.",
    ),
    (
        ["m350"],
        "pnpm install --frozen-lockfile",
        'Exit code 1\nScope: all 14 workspace projects\n ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date with apps/web/package.json',
    ),
    (
        ["m144"],
        "npx expo run:ios",
        'Exit code 65\n› Compiling expo-modules-core\n[!] CocoaPods could not find compatible versions for pod "ExpoModulesCore":\n  In Podfile: ExpoModulesCore (from `../node_modules/expo-modules-core`)\nerror: pod install failed',
    ),
    (
        ["m439"],
        "./gradlew assembleDebug",
        "Exit code 1\nFAILURE: Build failed with an exception.\n* What went wrong:\nCould not determine the dependencies of task ':app:compileDebugJavaWithJavac'.\n> SDK location not found. Define a valid SDK location with an ANDROID_HOME environment variable.",
    ),
    (
        ["m770"],
        "go mod download",
        "Exit code 1\ngo: github.com/acme/platform-go/auth@v1.4.0: reading https://proxy.golang.org/github.com/acme/platform-go/auth/@v/v1.4.0.mod: 410 Gone\n\tserver response: not found",
    ),
    (
        ["m779"],
        "acmectl db connect billing-staging",
        "Exit code 130\nResolving bastion for billing-staging...\nStarting session with SessionId: dev-0a1b2c3d\nWaiting for connections...\n^C interrupted after 120 s",
    ),
    (
        ["m780"],
        "acmectl deploy status web",
        "Exit code 3\nerror: login required: no stored token (keyring locked)\nrun `acmectl login` to sign in",
    ),
    (
        ["m644"],
        "dbt run --select marts.finance.fct_revenue",
        "Exit code 1\n04:12:03  Running with dbt=1.8.2\n04:12:09  1 of 1 START sql incremental model marts.fct_revenue\n04:31:44  1 of 1 ERROR creating sql incremental model marts.fct_revenue\nDatabase Error in model fct_revenue\n  Resources exceeded during query execution: Not enough resources for query planning",
    ),
    (
        ["m288"],
        "pytest services/billing/tests/test_webhooks.py -q",
        "Exit code 1\nFAILED services/billing/tests/test_webhooks.py::test_local_webhook - stripe.error.SignatureVerificationError: No signatures found matching the expected signature for payload\n1 failed, 23 passed in 2.41s",
    ),
    (
        ["m767"],
        "pytest -q",
        "Exit code 4\nERROR: 'slow' not found in `markers` configuration option\n1 error in 0.52s",
    ),
    (
        ["m159"],
        "python manage.py migrate orders 0042",
        "Exit code 1\nOperations to perform:\n  Target specific migration: 0042_order_status_index, from orders\nRunning migrations:\n  Applying orders.0042_order_status_index...\ndjango.db.utils.OperationalError: canceling statement due to lock timeout",
    ),
    (
        ["m758"],
        "make lint",
        "Exit code 2\nruff check .\nAll checks passed!\nscripts/check_make_help.sh\nerror: target 'seed-db' in Makefile has no ## comment\nmake: *** [lint] Error 1",
    ),
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
    for i, (gold, command, error) in enumerate(FAILURES):
        out.append(
            {
                "eid": f"x-{i:03d}",
                "kind": "failure",
                "split": "dev" if i % 2 == 0 else "heldout",
                "gold": gold,
                "input": {
                    "hook_event_name": "PostToolUseFailure",
                    "cwd": CWD,
                    "tool_name": "Bash",
                    "tool_input": {"command": command},
                    "error": error,
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

"""The recall-quality sets scripts/eval_recall reads, and the bench's SciFact rows too: each as
its JSONL lines for `import` and its queries (text, gold ids, labels such as split and
category). Where the sets come from: ../shared/data/scifact/README.md, scripts/data, and
scripts/data/conversations/build.py."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).resolve().parent.parent


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


Query = tuple[str, set[str], dict[str, str]]  # text, gold ids, labels (category, split)


def scifact(root: Path) -> tuple[list[str], list[Query]]:
    docs = load_jsonl(root / "scifact.memories.jsonl")
    lines = [json.dumps({"id": str(d["id"]), "content": d["text"]}) for d in docs]
    queries = [
        (q["query"], {str(g) for g in q["gold"]}, {"split": _scifact_split(q["qid"])})
        for q in load_jsonl(root / "queries.jsonl")
    ]
    return lines, queries


def _scifact_split(qid: str) -> str:
    """Odd claim numbers are for tuning, even ones held out: a fixed half, as in the memory
    set, so a ranking change can be chosen on one half and checked on the other."""
    return "dev" if int(qid.rsplit("/", 1)[-1]) % 2 else "heldout"


def memories(
    root: Path = SCRIPTS / "data",
    names: tuple[str, str] = ("agent_memories.jsonl", "agent_queries.jsonl"),
) -> tuple[list[str], list[Query]]:
    lines = [json.dumps(m) for m in load_jsonl(root / names[0])]
    queries = [
        (q["query"], set(q["gold"]), {"category": q["category"], "split": q["split"]})
        for q in load_jsonl(root / names[1])
    ]
    return lines, queries


def conversations(root: Path) -> tuple[list[str], list[Query]]:
    """Dated dialogue turns and the questions asked of them: the memory set's shape. Each
    question is asked on its date (recall's asked_at): recency counts from then, and what
    was said later (other questions' sessions) is not there to be found."""
    lines = [json.dumps(m) for m in load_jsonl(root / "memories.jsonl")]
    queries = [
        (
            q["query"],
            set(q["gold"]),
            {
                "category": q["category"],
                "split": q["split"],
                "asked_at": asked(q["question_date"]),
            },
        )
        for q in load_jsonl(root / "queries.jsonl")
    ]
    return lines, queries


def asked(question_date: str) -> str:
    """LongMemEval's "2023/05/30 (Tue) 10:18" as the end of that day, in the store's own
    stamp format. The day, not the minute: 67 of the 883 evidence turns are dated later on
    the question's own day (the set's times within a day do not order sessions and
    questions), 4 after it."""
    day = datetime.strptime(question_date.split(" (")[0], "%Y/%m/%d")
    return day.strftime("%Y-%m-%dT23:59:59.999999Z")

#!/usr/bin/env python3
"""Turn LongMemEval items into a conversational recall set for scripts/eval_recall.

    scripts/data/conversations/build.py OUT_DIR SOURCE.json...

Each SOURCE holds one LongMemEval item or a list of them (the upstream
longmemeval_s*.json is a list; some copies keep one item a file). Writes
OUT_DIR/memories.jsonl (Enyal's import format, one dialogue turn a line) and
OUT_DIR/queries.jsonl (the questions, gold = the ids of the evidence turns).
Deterministic: the same sources give the same bytes. README.md beside this file
says what is selected and why.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

DISTRACTOR_SESSIONS = 1  # per question, from its own haystack: same persona, same dates


def items(paths: Iterable[Path]) -> Iterator[dict[str, Any]]:
    for path in paths:
        data = json.loads(path.read_text())
        yield from data if isinstance(data, list) else [data]


def eligible(item: dict[str, Any]) -> bool:
    """A question with evidence turns to find: abstention questions (`_abs`) ask for what
    was never said, and an item without a `has_answer` turn has nothing to score."""
    if item["question_id"].endswith("_abs"):
        return False
    return any(t.get("has_answer") for s in item["haystack_sessions"] for t in s)


def when(date: str, turn: int) -> str:
    """'2023/05/20 (Sat) 02:21' as ISO 8601 UTC; a turn a second after the one before,
    so the order within a session survives a sort by created_at."""
    day = datetime.strptime(date.split(" (")[0] + date.split(")")[1], "%Y/%m/%d %H:%M")
    return (day + timedelta(seconds=turn)).strftime("%Y-%m-%dT%H:%M:%SZ")


def kept_sessions(item: dict[str, Any], distractors: int) -> list[int]:
    """The evidence sessions and `distractors` others of the item's haystack, chosen by a
    hash of question and session id: fixed, and blind to what the sessions say."""
    sessions = item["haystack_sessions"]
    answer = set(item.get("answer_session_ids", []))
    evidence = [
        i
        for i, (sid, s) in enumerate(zip(item["haystack_session_ids"], sessions, strict=True))
        if sid in answer or any(t.get("has_answer") for t in s)
    ]
    others = sorted(
        (i for i in range(len(sessions)) if i not in evidence),
        key=lambda i: hashlib.sha256(
            f"{item['question_id']}/{item['haystack_session_ids'][i]}".encode()
        ).hexdigest(),
    )
    return sorted(evidence + others[:distractors])


def build(
    source: Iterable[dict[str, Any]], distractors: int = DISTRACTOR_SESSIONS
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(memories, queries). Questions in question_id order; a session shared by two
    questions is stored once, dated as the first one has it; a turn whose text is already
    stored is not stored again (the daemon would merge it), and gold points at the copy kept."""
    chosen = sorted((i for i in source if eligible(i)), key=lambda i: str(i["question_id"]))
    memories: list[dict[str, Any]] = []
    by_text: dict[str, str] = {}
    by_turn: dict[tuple[str, int], str] = {}
    queries: list[dict[str, Any]] = []
    for n, item in enumerate(chosen, 1):
        gold: list[str] = []
        for i in kept_sessions(item, distractors):
            sid = item["haystack_session_ids"][i]
            for t, turn in enumerate(item["haystack_sessions"][i]):
                text = turn["content"].strip()
                if not text:
                    continue
                if (sid, t) not in by_turn:
                    if text not in by_text:
                        by_text[text] = f"{sid}/{t}"
                        memories.append(
                            {
                                "id": by_text[text],
                                "content": text,
                                "content_type": "fact",
                                "tags": [turn["role"]],
                                "created_at": when(item["haystack_dates"][i], t),
                            }
                        )
                    by_turn[(sid, t)] = by_text[text]
                if turn.get("has_answer") and by_turn[(sid, t)] not in gold:
                    gold.append(by_turn[(sid, t)])
        queries.append(
            {
                "qid": f"c{n:03d}",
                "query": item["question"],
                "gold": gold,
                "category": item["question_type"],
                "split": "dev" if n % 2 else "heldout",
                "source_id": item["question_id"],
                "question_date": item["question_date"],
            }
        )
    return memories, queries


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="folder for memories.jsonl and queries.jsonl")
    ap.add_argument("sources", type=Path, nargs="+", help="LongMemEval JSON files")
    ap.add_argument("--distractors", type=int, default=DISTRACTOR_SESSIONS)
    args = ap.parse_args()
    memories, queries = build(items(args.sources), args.distractors)
    args.out.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.out / "memories.jsonl", memories)
    write_jsonl(args.out / "queries.jsonl", queries)
    print(f"{len(memories)} memories, {len(queries)} queries in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

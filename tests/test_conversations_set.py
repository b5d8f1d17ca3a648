"""The conversational recall set's converter (scripts/data/conversations/build.py):
what it writes imports as it is, and every question's gold is a stored turn."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

from enyal_daemon.service.rules.clock import normalize_iso
from enyal_protocol import wire as p

BUILD = Path(__file__).resolve().parent.parent / "scripts" / "data" / "conversations" / "build.py"


@pytest.fixture(scope="module")
def build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conversations_build", BUILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def turn(role: str, content: str, has_answer: bool = False) -> dict[str, Any]:
    return {"role": role, "content": content, **({"has_answer": True} if has_answer else {})}


def item(qid: str, sessions: dict[str, list[dict[str, Any]]], dates: list[str]) -> dict[str, Any]:
    """A LongMemEval item as the upstream files have it."""
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": f"question {qid}?",
        "answer": "a",
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": list(sessions),
        "haystack_dates": dates,
        "haystack_sessions": list(sessions.values()),
        "answer_session_ids": [s for s in sessions if s.startswith("answer")],
    }


SOURCE = [
    item(
        "q2",
        {
            "shared_0": [turn("user", "Thanks!"), turn("assistant", "Any time.")],
            "answer_q2": [turn("user", "Thanks!", has_answer=True), turn("user", "I moved.")],
            "filler_a": [turn("user", "Tell me about knitting."), turn("assistant", "  ")],
        },
        ["2023/05/01 (Mon) 09:00", "2023/05/02 (Tue) 10:30", "2023/05/03 (Wed) 11:00"],
    ),
    item(
        "q1",
        {
            "answer_q1": [turn("user", "I ran a 5K in 26:30.", has_answer=True)],
            "shared_0": [turn("user", "Thanks!"), turn("assistant", "Any time.")],
            "filler_b": [turn("user", "What is a good pasta flour?")],
        },
        ["2023/04/01 (Sat) 08:00", "2023/04/02 (Sun) 08:00", "2023/04/03 (Mon) 08:00"],
    ),
    item(
        "q3_abs",
        {"answer_q3": [turn("user", "I have a cat.", has_answer=True)]},
        ["2023/01/01 (Sun) 00:00"],
    ),
    item(
        "q4", {"answer_q4": [turn("user", "No evidence marked here.")]}, ["2023/01/01 (Sun) 00:00"]
    ),
]


def test_lines_import_and_gold_is_stored(build: ModuleType, tmp_path: Path) -> None:
    memories, queries = build.build(SOURCE, distractors=1)
    decoder = msgspec.json.Decoder(p.ImportEntry)
    ids = []
    for m in memories:
        entry = decoder.decode(json.dumps(m))  # the import's own line type, unknown fields refused
        assert entry.id is not None and entry.created_at is not None
        normalize_iso(entry.created_at, "created_at")
        ids.append(entry.id)
    assert len(ids) == len(set(ids))
    stored = set(ids)
    # Abstention and unmarked questions are left out; the rest in question_id order, odd = dev.
    assert [(q["source_id"], q["split"]) for q in queries] == [("q1", "dev"), ("q2", "heldout")]
    for q in queries:
        assert q["gold"] and set(q["gold"]) <= stored


def test_shared_sessions_and_repeated_text_are_stored_once(build: ModuleType) -> None:
    memories, queries = build.build(SOURCE, distractors=5)
    texts = [m["content"] for m in memories]
    assert len(texts) == len(set(texts))  # the daemon would merge a repeat into the first
    assert all(t.strip() for t in texts)  # a blank turn is no memory
    by_id = {m["id"]: m for m in memories}
    # shared_0 is dated as q1 (first by question_id) has it, a second a turn.
    assert by_id["shared_0/0"]["created_at"] == "2023-04-02T08:00:00Z"
    assert by_id["shared_0/1"]["created_at"] == "2023-04-02T08:00:01Z"
    # q2's evidence says what shared_0/0 says: its gold is the copy kept.
    q2 = next(q for q in queries if q["source_id"] == "q2")
    assert q2["gold"] == ["shared_0/0"]


def test_distractors_are_chosen_blind_and_the_same_every_time(build: ModuleType) -> None:
    none = {m["id"] for m in build.build(SOURCE, distractors=0)[0]}
    assert none == {"answer_q1/0", "answer_q2/0", "answer_q2/1"}
    once = build.build(SOURCE, distractors=1)
    assert once == build.build(list(reversed(SOURCE)), distractors=1)
    for source in SOURCE[:2]:  # its evidence sessions and one other of its own haystack
        kept = [source["haystack_session_ids"][i] for i in build.kept_sessions(source, 1)]
        assert len(kept) == 2 and any(s.startswith("answer") for s in kept)

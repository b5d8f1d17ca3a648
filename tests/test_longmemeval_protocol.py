"""LongMemEval_S's standard protocol in scripts/eval_recall (benchlib/longmemeval.py): a
tiny set shaped like ../shared/data/longmemeval_s, run through the script, one real
daemon a question, and its figures checked against values worked out by hand."""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

from benchlib import lme_metrics as lm  # noqa: E402


def user(text: str, answer: bool = False) -> dict[str, Any]:
    return {"role": "user", "content": text, **({"has_answer": True} if answer else {})}


def bot(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


WALLS = "Which colour did I paint my bedroom walls?"
SESSIONS = {
    # q1's first answer: the question's own words, so it ranks first by meaning and words.
    "ans_a": [user(f"{WALLS} I remember now: sage green.", answer=True), bot("Sage is calm.")],
    # q1's second answer shares nothing with the question: it ranks below every filler.
    "ans_b": [user("My cousin's tortoise eats dandelions every morning.", answer=True)],
    "f1": [user("Which paint brands are good for bedroom walls?"), bot("Several are.")],
    "f2": [user("How many coats of paint do bedroom walls need?")],
    "f3": [user("Is matte or satin paint better for bedroom walls?")],
    "f4": [user("What colour goes well on bedroom walls with little light?")],
    "f5": [user("Should I paint the bedroom walls before the ceiling?")],
    "ans_c": [user("My pet iguana is named Ziggy.", answer=True), bot("Lovely name.")],
}


def question(qid: str, text: str, haystack: list[str], answers: list[str]) -> dict[str, Any]:
    # The unrelated answer session the oldest and the matching one the newest, so that
    # recency moves neither past a filler.
    dates = [f"2023/05/{day:02d} (Mon) 10:00" for day in range(1, len(haystack) + 1)]
    order = sorted(haystack, key=lambda s: (s != "ans_b", s == "ans_a", s))
    return {
        "question_id": qid,
        "question_type": "temporal-reasoning" if qid == "q1" else "single-session-user",
        "question": text,
        "answer": "x",
        "question_date": "2023/06/01 (Thu) 09:00",
        "haystack_session_ids": order,
        "haystack_dates": dates,
        "answer_session_ids": answers,
    }


QUESTIONS = [
    question("q1", WALLS, ["ans_a", "ans_b", "f1", "f2", "f3", "f4", "f5"], ["ans_a", "ans_b"]),
    question("q2", "What is the name of my pet iguana?", ["ans_c", "f1", "f2"], ["ans_c"]),
    question("q3_abs", "What is my sister's favourite band?", ["f1", "f2", "f3"], ["f1"]),
]

# q1 by hand: sessions ranked ans_a, five fillers, ans_b (7th); its two answer turns
# likewise (one user turn a session). q2: its answer first, its only answer.
NDCG_Q1 = (1 + 1 / math.log2(8)) / (1 + 1 / math.log2(3))
SESSION_EXPECTED = {
    "R@5 any": 1.0,
    "R@5 all": (0 + 1) / 2,
    "R@10 any": 1.0,
    "R@10 all": 1.0,
    "nDCG@10": (NDCG_Q1 + 1) / 2,
}
TURN_EXPECTED = {
    "R@5 any": 1.0,
    "R@5 all": 0.5,
    "R@5": (0.5 + 1) / 2,
    "R@10": 1.0,
    "nDCG@10": (NDCG_Q1 + 1) / 2,
}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("lme")
    (root / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    with gzip.open(root / "sessions.jsonl.gz", "wt") as f:
        for sid, turns in SESSIONS.items():
            f.write(json.dumps({"session_id": sid, "date": "2023/05/01", "turns": turns}) + "\n")
    out = root / "out.json"
    env = {**os.environ, "ENYAL_BENCH_CACHE": str(root / "bench-cache")}
    env["ENYAL_CACHE_DIR"] = str(model_cache)
    env.pop("ENYAL_HOME", None)
    cmd = [sys.executable, str(SCRIPTS / "eval_recall"), "--only", "longmemeval"]
    cmd += ["--longmemeval", str(root), "--json", str(out)]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "longmemeval (standard protocol): 3 questions, 1 abstention" in run.stdout
    [lme] = json.loads(out.read_text())
    assert isinstance(lme, dict)
    return lme


def test_session_and_turn_figures_match_the_hand_computed_ones(result: dict[str, Any]) -> None:
    enyal = result["scores"]["enyal@date"]["all"]
    assert enyal["questions"] == 2 and enyal["turn_questions"] == 2  # q3_abs is not scored
    for key, want in SESSION_EXPECTED.items():
        assert enyal["session"][key] == pytest.approx(want, abs=1e-4), key
    for key, want in TURN_EXPECTED.items():
        assert enyal["turn"][key] == pytest.approx(want, abs=1e-4), key


def test_each_question_has_its_own_store_of_user_turns(result: dict[str, Any]) -> None:
    rows = {r["qid"]: r for r in result["per_question"]}
    assert {q: r["memories"] for q, r in rows.items()} == {"q1": 7, "q2": 3, "q3_abs": 3}
    assert rows["q1"]["sessions"]["enyal@date"][0] == "ans_a"
    assert rows["q1"]["sessions"]["enyal@date"][-1] == "ans_b"
    assert rows["q3_abs"]["abstention"] and rows["q3_abs"]["scores"] == {}


def test_every_method_and_the_time_category_are_reported(result: dict[str, Any]) -> None:
    methods = set(result["scores"])
    assert {"enyal@date", "enyal@now", "dense", "dense sessions", "BM25", "weighted"} <= methods
    # Asked now with recall's defaults the 2023 store still answers q2.
    assert result["per_question"][1]["sessions"]["enyal@now"][0] == "ans_c"
    split = next(r["split"] for r in result["per_question"] if r["qid"] == "q1")
    assert f"{split}:type=temporal-reasoning" in result["scores"]["enyal@date"]


def test_sessions_rank_at_their_first_hit() -> None:
    sessions_of = {"a/0": ["a"], "b/0": ["b"], "a/2": ["a"], "x/0": ["c", "d"]}
    ranked = lm.sessions_ranked(["a/0", "b/0", "a/2", "x/0"], sessions_of)
    assert ranked == ["a", "b", "c", "d"]
    s = lm.session_scores(["a", "b", "c", "d", "e", "f"], {"b", "f"})
    assert s["R@5 any"] == 1.0 and s["R@5 all"] == 0.0 and s["R@10 all"] == 1.0
    ideal = 1 + 1 / math.log2(3)
    assert s["nDCG@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(7)) / ideal)

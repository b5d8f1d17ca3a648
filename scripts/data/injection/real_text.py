"""Real text for the injection classifier, apart from labelled.jsonl: long benign text it
trains on, and the text its false positives are measured on, never the same.

Training (`training`, dev only, all benign): turns of the conversations set's dev half
(`../shared/data/conversations/`, what scripts/eval_recall reads: the sessions holding a
dev question's evidence and no held-out question's, evidence turns left out), SciFact
abstracts (`../shared/data/scifact/`), and the docstrings of this repository's daemon and
client modules (hygiene/ left out: it describes injections in their own words).

Measurement (`measured`, never trained on): LongMemEval_S evidence user turns
(`../shared/data/longmemeval_s/`, the `has_answer` turns), the paragraphs of README.md,
docs/ARCHITECTURE.md and docs/PROTOCOL.md as of DOCS_AT, and the conversations set's
held-out turns (sessions of held-out questions only). Any text of these is dropped from
training. `dev_measured`: the dev side's real text, read before the held-out sets are
(LongMemEval_S dev-only user turns, the conversations' dev turns). Samples are seeded:
the same files give the same texts.
"""

from __future__ import annotations

import ast
import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO / "scripts"))
from benchlib import longmemeval  # noqa: E402

DOCS_AT = "f8eed6b"  # the docs measured in round five, before and after alike
DOCS = ("README.md", "docs/ARCHITECTURE.md", "docs/PROTOCOL.md")
SEED = 24  # issue 24
CONVERSATION_TURNS = 800
ABSTRACTS = 300
MEASURED_TURNS = 400
TURNS = "turns"  # in a measured set's name: conversation turns, judged as import judges one


Turns = dict[str, list[dict[str, str]]]


def _conversation_sessions(shared: Path) -> tuple[Turns, set[str], set[str], set[str]]:
    """The conversations set's turns by session, the sessions of dev and of held-out
    questions' evidence, and every evidence turn's id."""
    turns: Turns = {}
    for line in (shared / "conversations" / "memories.jsonl").open(encoding="utf-8"):
        m = json.loads(line)
        turns.setdefault(m["id"].rsplit("/", 1)[0], []).append(m)
    dev: set[str] = set()
    held: set[str] = set()
    gold: set[str] = set()
    for line in (shared / "conversations" / "queries.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        gold.update(q["gold"])
        (dev if q["split"] == "dev" else held).update(g.rsplit("/", 1)[0] for g in q["gold"])
    return turns, dev - held, held - dev, gold


def _lme_evidence(shared: Path) -> list[str]:
    texts: set[str] = set()
    with gzip.open(shared / "longmemeval_s" / "sessions.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            for t in json.loads(line)["turns"]:
                if t.get("has_answer") and t["role"] == "user" and t["content"].strip():
                    texts.add(t["content"])
    return random.Random(SEED).sample(sorted(texts), MEASURED_TURNS)


def _doc_paragraphs(repo: Path) -> list[str]:
    out: list[str] = []
    for name in DOCS:
        text = subprocess.run(
            ["git", "-C", str(repo), "show", f"{DOCS_AT}:{name}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        out += [p.strip() for p in text.split("\n\n") if len(p.strip()) >= 40]
    return out


def measured(shared: Path = SHARED, repo: Path = REPO) -> dict[str, list[str]]:
    """The measurement texts by set: LongMemEval evidence user turns, doc paragraphs,
    the conversations' held-out turns."""
    turns, _, held, _ = _conversation_sessions(shared)
    held_texts = sorted({m["content"] for s in sorted(held) for m in turns[s]})
    return {
        "longmemeval evidence user turns": _lme_evidence(shared),
        "doc paragraphs": _doc_paragraphs(repo),
        "conversations held-out turns": random.Random(SEED).sample(held_texts, MEASURED_TURNS),
    }


DEV_LME_TURNS = 3000
DEV_CONVERSATION_TURNS = 1200


def dev_measured(shared: Path = SHARED) -> dict[str, list[str]]:
    """Real text of the dev side, to measure false positives on before the held-out sets
    (`measured`) are read: user turns of LongMemEval_S sessions in dev questions'
    haystacks and no held-out question's (benchlib/longmemeval.py's split), and turns
    of the conversations set's dev sessions (both speakers; the long assistant turns
    are the ones the whole text's cues flagged), each a seeded sample. Training reads
    some of the latter with `--long-benign` only."""
    split = longmemeval.split
    dev: set[str] = set()
    held: set[str] = set()
    for line in (shared / "longmemeval_s" / "questions.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        (dev if split(q["question_id"]) == "dev" else held).update(q["haystack_session_ids"])
    user: set[str] = set()
    with gzip.open(shared / "longmemeval_s" / "sessions.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            s = json.loads(line)
            if s["session_id"] in dev - held:
                user.update(
                    t["content"].strip()
                    for t in s["turns"]
                    if t["role"] == "user" and t["content"].strip()
                )
    turns, conv_dev, _, _ = _conversation_sessions(shared)
    conv = sorted({m["content"] for s in sorted(conv_dev) for m in turns[s]})
    return {
        "longmemeval dev user turns": random.Random(SEED).sample(sorted(user), DEV_LME_TURNS),
        "conversations dev turns": random.Random(SEED).sample(conv, DEV_CONVERSATION_TURNS),
    }


def _docstrings(repo: Path) -> list[str]:
    out: list[str] = []
    for top in ("daemon", "client"):
        for path in sorted((repo / top).rglob("*.py")):
            if "hygiene" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(
                    node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
                ):
                    doc = ast.get_docstring(node)
                    if doc and len(doc) >= 200:
                        out.append(doc)
    return out


def training(shared: Path = SHARED, repo: Path = REPO) -> list[tuple[str, str]]:
    """(kind, text) of the long benign text training reads, none of it measured."""
    turns, dev, _, gold = _conversation_sessions(shared)
    barred = {t for texts in measured(shared, repo).values() for t in texts}
    conv = sorted(
        {
            m["content"]
            for s in sorted(dev)
            for m in turns[s]
            if m["id"] not in gold and m["content"] not in barred
        }
    )
    abstracts = [
        json.loads(line)["text"]
        for line in (shared / "scifact" / "scifact.memories.jsonl").open(encoding="utf-8")
    ]
    rng = random.Random(SEED)
    out = [("long:conversation", t) for t in rng.sample(conv, CONVERSATION_TURNS)]
    out += [("long:abstract", t) for t in rng.sample(sorted(abstracts), ABSTRACTS)]
    out += [("long:docstring", t) for t in sorted(set(_docstrings(repo))) if t not in barred]
    return out

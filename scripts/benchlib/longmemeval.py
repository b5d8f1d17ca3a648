"""LongMemEval_S by the standard protocol: one store a question, asked at its date and now.

Data: ../shared/data/longmemeval_s (its README): questions.jsonl (498 questions, each
with its haystack's session ids and dates and its answer sessions) and
sessions.jsonl.gz (the sessions' turns, `has_answer` marking evidence turns).

Each question gets a store of its own holding its haystack's user turns, one memory a
turn, dated as the conversational set dates them (scripts/data/conversations/build.py
`when`: the session's date, a second a turn). User turns only: what a user said is
what a memory system is asked to remember about them, it is what the outside check of
issue 31 stored, and it halves the texts to embed (the assistant's turns are longer
and as many). Questions whose evidence is an assistant turn (single-session-assistant)
still count at the level of sessions; at the level of turns only questions with a
`has_answer` user turn count.

How a store is built, cheaply and still by the real code: the import method's own
function (service/upkeep/transfer.py import_lines, the same redaction, quarantine
judging, de-duplication, passages and rows as `enyal import`) runs in this process on
an Engine over the question's fresh ENYAL_HOME, with the daemon's embedder behind a
disk cache (benchlib/vector_cache.py), so each distinct text is embedded once ever.
The store is then served by a real daemon subprocess on its socket for the questions'
recalls, and read by the baselines (benchlib/baselines.py) after the daemon stops.

Each question is asked twice, with `limit` 50 (enough turns to usually hold ten
distinct sessions): at its date (`asked_at`, as the conversations are asked; no floor,
the ranking as such) and now with recall's defaults (nothing else set), which is what
a user asking today gets. Abstention questions (`_abs`: the answer was never said) are
asked too but left out of the retrieval figures: they measure where a list should end
(--floors: each pair of floors asked as it is and with drop_weak_only, as the hooks ask,
which leaves a list of weak hits only empty).

The split: a question is dev when the first byte of sha256(question_id) is even, else
heldout; tune on dev only.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import lme_metrics as lm
from benchlib.baselines import Baselines
from benchlib.procs import Daemon
from benchlib.vector_cache import CachedEmbedder
from enyal_daemon.service.core.engine import Engine
from enyal_daemon.service.upkeep import transfer
from enyal_protocol import wire as p

LIMIT = 50  # turns a recall returns: ten distinct sessions are usually among them
FLOOR_LIMIT = 10  # what a user is shown: where the floors are judged
SESSION = "session:"  # marks a ranking of sessions (the pooled baseline), not of memories
BUILD = Path(__file__).resolve().parent.parent / "data" / "conversations" / "build.py"


def _conversations_build() -> Any:
    """scripts/data/conversations/build.py: its `when` dates turns (said once, there)."""
    spec = importlib.util.spec_from_file_location("conversations_build", BUILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def split(question_id: str) -> str:
    return "dev" if hashlib.sha256(question_id.encode()).digest()[0] % 2 == 0 else "heldout"


@dataclass
class Question:
    qid: str
    qtype: str
    text: str
    date: str  # LongMemEval's "2023/05/30 (Tue) 10:18"
    sessions: list[str]
    dates: list[str]
    answers: set[str]

    @property
    def abstention(self) -> bool:
        return self.qid.endswith("_abs")

    @property
    def split(self) -> str:
        return split(self.qid)


def load(
    root: Path,
    which: str | None,
    sample: int | None,
    abstention: bool = False,
    qtype: str | None = None,
) -> list[Question]:
    """The questions of split `which` (None: both) in question_id order; with `sample`,
    the first `sample` of each split in sha256 order (a fixed sample, blind to content);
    with `abstention`, only the abstention questions (there are 30: a sample holds few);
    with `qtype`, only the questions of that type (before the sample is taken)."""
    qs = []
    with (root / "questions.jsonl").open() as f:
        for line in f:
            q = json.loads(line)
            qs.append(
                Question(
                    q["question_id"],
                    q["question_type"],
                    q["question"],
                    q["question_date"],
                    q["haystack_session_ids"],
                    q["haystack_dates"],
                    set(q["answer_session_ids"]),
                )
            )
    qs = [q for q in qs if which in (None, q.split) and (q.abstention or not abstention)]
    qs = [q for q in qs if qtype in (None, q.qtype)]
    if sample is not None:
        order = sorted(qs, key=lambda q: hashlib.sha256(q.qid.encode()).hexdigest())
        keep = {
            q.qid for s in ("dev", "heldout") for q in [x for x in order if x.split == s][:sample]
        }
        qs = [q for q in qs if q.qid in keep]
    return sorted(qs, key=lambda q: q.qid)


Turns = list[dict[str, Any]]


def sessions(root: Path, wanted: set[str]) -> dict[str, Turns]:
    out: dict[str, Turns] = {}
    with gzip.open(root / "sessions.jsonl.gz", "rt") as f:
        for line in f:
            s = json.loads(line)
            if s["session_id"] in wanted:
                out[s["session_id"]] = s["turns"]
    return out


@dataclass
class Store:
    """One question's memories as import lines, and which session and turn each is."""

    lines: list[str] = field(default_factory=list)
    line_turn: list[tuple[str, str]] = field(default_factory=list)  # (session id, turn id)
    evidence: set[str] = field(default_factory=set)  # has_answer user turns' ids


def memories(
    q: Question,
    turns_of: dict[str, Turns],
    when: Callable[[str, int], str],
    roles: Sequence[str] = ("user",),
) -> Store:
    """`roles`: whose turns are stored (--assistant: the assistant's too, each tagged with
    its role; an evidence turn of either then counts at the level of turns)."""
    store = Store()
    for sid, date in zip(q.sessions, q.dates, strict=True):
        for t, turn in enumerate(turns_of[sid]):
            text = turn["content"].strip()
            if turn["role"] not in roles or not text:
                continue
            tid = f"{sid}/{t}"
            line = {
                "id": tid,
                "content": text,
                "content_type": "fact",
                "tags": [turn["role"]],
                "created_at": when(date, t),
            }
            store.lines.append(json.dumps(line))
            store.line_turn.append((sid, tid))
            if turn.get("has_answer"):
                store.evidence.add(tid)
    return store


@dataclass
class Stored:
    """What the import made of a Store: each memory id's sessions and turns (a text said
    twice is stored once, under the first turn's id), and the lines that failed."""

    sessions_of: dict[str, list[str]]
    turns_of: dict[str, list[str]]
    failed: int
    quarantined: int


def build_store(db_path: Path, store: Store, embedder: CachedEmbedder) -> Stored:
    engine = Engine(db_path, embedder)
    try:
        r = transfer.import_lines(engine, p.ImportParams(lines=store.lines, first_line=1))
        quarantined = (
            engine.reader()
            .execute("SELECT count(*) FROM context_entries WHERE quarantined")
            .fetchone()[0]
        )
    finally:
        engine.close()
    sessions_of: dict[str, list[str]] = {}
    turns_of: dict[str, list[str]] = {}
    failed = 0
    for res in r.lines:
        if res.status == "failed" or res.id is None:
            failed += 1
            continue
        sid, tid = store.line_turn[res.line - 1]
        sessions_of.setdefault(res.id, [])
        if sid not in sessions_of[res.id]:
            sessions_of[res.id].append(sid)
        turns_of.setdefault(res.id, []).append(tid)
    return Stored(sessions_of, turns_of, failed, int(quarantined))


WEAK = "+weak"  # marks a floor pair asked with drop_weak_only


def pair_key(floor: float, relative: float, weak: bool) -> str:
    return f"{floor}/{relative}{WEAK if weak else ''}"


@dataclass
class Asked:
    """One question's rankings (memory ids, best first) by every method, and its floors'."""

    qid: str
    ranked: dict[str, list[str]]
    floored: dict[str, list[str]]  # "floor/relative" -> ids recall kept, at the date
    stored: Stored
    recall_ms: float  # the recall at the date, as the client saw it


def ask(
    q: Question,
    store: Store,
    embedder: CachedEmbedder,
    asked_at: str,
    floors: Sequence[tuple[float, float]],
) -> Asked:
    home = Path(tempfile.mkdtemp(prefix="enyal-lme-"))
    try:
        stored = build_store(home / "enyal.db", store, embedder)
        daemon = Daemon.start(home)
        ranked: dict[str, list[str]] = {}
        floored: dict[str, list[str]] = {}
        try:
            conn = daemon.connect()
            try:
                at = {"query": q.text, "limit": LIMIT, "asked_at": asked_at}
                bare = {"min_confidence": 0.0, "min_relevance": 0.0, "min_relative": 0.0}
                t0 = time.perf_counter()
                hits = conn.call("recall", {**at, **bare})["results"]
                recall_ms = (time.perf_counter() - t0) * 1e3
                ranked["enyal@date"] = [h["id"] for h in hits]
                for (floor, relative), weak in itertools.product(floors, (False, True)):
                    params = {
                        **at,
                        **bare,
                        "limit": FLOOR_LIMIT,
                        "min_relevance": floor,
                        "min_relative": relative,
                        "drop_weak_only": weak,  # what the hooks send
                    }
                    found = conn.call("recall", params)["results"]
                    floored[pair_key(floor, relative, weak)] = [h["id"] for h in found]
                # Last: asked now, recall counts a use of what it returns.
                now = conn.call("recall", {"query": q.text, "limit": LIMIT})["results"]
                ranked["enyal@now"] = [h["id"] for h in now]
            finally:
                conn.close()
        finally:
            daemon.stop()
        base = Baselines(home / "enyal.db", [q.text], [asked_at], embedder)
        for method, rank in base.rankers().items():
            ranked[method] = rank(0)
        group = {x: ss[0] for x, ss in stored.sessions_of.items()}
        # Ranks sessions, not memories: marked by the prefix sessions_ranked reads.
        ranked["dense sessions"] = [SESSION + s for s in base.pooled(0, group)]
        return Asked(q.qid, ranked, floored, stored, recall_ms)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def session_ranking(ids: list[str], stored: Stored) -> list[str]:
    if ids and ids[0].startswith(SESSION):
        return [x[len(SESSION) :] for x in ids]
    return lm.sessions_ranked(ids, stored.sessions_of)


def turn_ranking(ids: list[str], stored: Stored) -> list[str]:
    return list(dict.fromkeys(t for x in ids for t in stored.turns_of.get(x, ())))


def score(q: Question, store: Store, a: Asked) -> dict[str, dict[str, dict[str, float]]]:
    """{method: {"session": metrics, "turn": metrics}}; turn figures only for a question
    with an evidence user turn, none for an abstention question."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for method, ids in a.ranked.items():
        out[method] = {"session": lm.session_scores(session_ranking(ids, a.stored), q.answers)}
        if store.evidence and not (ids and ids[0].startswith(SESSION)):
            out[method]["turn"] = lm.turn_scores(turn_ranking(ids, a.stored), store.evidence)
    return out


def floor_counts(q: Question, a: Asked) -> dict[str, dict[str, int]]:
    """Per floor pair: whether the list was left empty, and for an answerable question
    whether an answer session recall had in its unfloored top 10 turns was cut."""
    top = set(lm.sessions_ranked(a.ranked["enyal@date"][:FLOOR_LIMIT], a.stored.sessions_of))
    reachable = bool(q.answers & top)
    out = {}
    for pair, ids in a.floored.items():
        kept = set(lm.sessions_ranked(ids, a.stored.sessions_of))
        out[pair] = {
            "empty": int(not ids),
            "reachable": int(reachable),
            "lost": int(reachable and not (q.answers & kept)),
            "shown": len(ids),
        }
    return out


def run(
    root: Path,
    which: str | None,
    sample: int | None,
    cache_dir: Path,
    model_cache_dir: Path,
    asked: Callable[[str], str],
    floors: Sequence[tuple[float, float]] = (),
    abstention: bool = False,
    roles: Sequence[str] = ("user",),
    qtype: str | None = None,
    log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
) -> dict[str, Any]:
    """Every chosen question through the protocol; the per-question figures, grouped."""
    questions = load(root, which, sample, abstention, qtype)
    turns_of = sessions(root, {s for q in questions for s in q.sessions})
    when = _conversations_build().when
    embedder = CachedEmbedder(cache_dir, model_cache_dir)
    # Every store's daemon runs the 8-bit build made once here: in a fresh ENYAL_HOME it
    # would make its own (~10 s a store, embedder/build8.py).
    os.environ["ENYAL_CACHE_DIR"] = str(model_cache_dir)
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    try:
        for n, q in enumerate(questions, 1):
            store = memories(q, turns_of, when, roles)
            a = ask(q, store, embedder, asked(q.date), floors)
            rows.append(
                {
                    "qid": q.qid,
                    "type": q.qtype,
                    "split": q.split,
                    "abstention": q.abstention,
                    "memories": len(a.stored.sessions_of),
                    "failed": a.stored.failed,
                    "quarantined": a.stored.quarantined,
                    "recall_ms": round(a.recall_ms, 1),
                    "scores": {} if q.abstention else score(q, store, a),
                    "floors": floor_counts(q, a),
                    "sessions": {
                        m: session_ranking(ids, a.stored)[:10] for m, ids in a.ranked.items()
                    },
                }
            )
            log(
                f"longmemeval: {n}/{len(questions)} {q.qid} ({len(store.lines)} turns, "
                f"{embedder.embedded} embedded so far, {time.perf_counter() - t0:.0f} s)"
            )
    finally:
        embedder.close()
    return summarise(rows, floors)


def summarise(rows: list[dict[str, Any]], floors: Sequence[tuple[float, float]]) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        for g in ("all", f"split={r['split']}", f"{r['split']}:type={r['type']}"):
            groups.setdefault(g, []).append(r)
    scores: dict[str, dict[str, dict[str, Any]]] = {}
    for g, members in groups.items():
        answerable = [r for r in members if not r["abstention"]]
        for method in answerable[0]["scores"] if answerable else []:
            s = [r["scores"][method]["session"] for r in answerable]
            t = [r["scores"][method]["turn"] for r in answerable if "turn" in r["scores"][method]]
            scores.setdefault(method, {})[g] = {
                "questions": len(s),
                "session": {k: round(v, 4) for k, v in lm.mean(s, lm.SESSION_METRICS).items()},
                "turn_questions": len(t),
                "turn": {k: round(v, 4) for k, v in lm.mean(t, lm.TURN_METRICS).items()}
                if t
                else {},
            }
    floor_table: dict[str, dict[str, dict[str, float]]] = {}
    for (f, rel), weak in itertools.product(floors, (False, True)):
        pair = pair_key(f, rel, weak)
        for sp in ("dev", "heldout"):
            abst = [r["floors"][pair] for r in rows if r["split"] == sp and r["abstention"]]
            ans = [r["floors"][pair] for r in rows if r["split"] == sp and not r["abstention"]]
            if not ans and not abst:
                continue
            floor_table.setdefault(pair, {})[sp] = {
                "abstention_questions": len(abst),
                "abstention_said_nothing": sum(x["empty"] for x in abst),
                "abstention_shown_per_q": round(
                    sum(x["shown"] for x in abst) / max(len(abst), 1), 2
                ),
                "answerable": len(ans),
                "answer_reachable": sum(x["reachable"] for x in ans),
                "answer_cut": sum(x["lost"] for x in ans),
                "answerable_said_nothing": sum(x["empty"] for x in ans),
            }
    lat = sorted(r["recall_ms"] for r in rows)
    return {
        "set": "longmemeval",
        "recall_p50_ms": lat[len(lat) // 2] if lat else None,
        "recall_p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None,
        "questions": len(rows),
        "abstention": sum(r["abstention"] for r in rows),
        "failed_lines": sum(r["failed"] for r in rows),
        "quarantined": sum(r["quarantined"] for r in rows),
        "scores": scores,
        "floors": floor_table,
        "per_question": rows,
    }

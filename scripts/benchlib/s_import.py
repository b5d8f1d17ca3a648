"""4b and 6. `enyal import` of JSONL files, process start to exit: short memories (the
throughput goal), then SciFact abstracts (~1,500 characters, the model's full 256
tokens), after which the daemon's RSS has a goal of its own at 100k."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from benchlib import corpus, embed_bound
from benchlib.config import Ctx
from benchlib.machine import REPO
from benchlib.procs import BIN, Daemon, env_for
from benchlib.report import Row, Target, size
from benchlib.s_memory import RSS_TARGET_MB
from benchlib.stats import Runs

TARGET_AT = 100_000
TARGET_RATE = 300.0  # issue 30
SCIFACT_TARGET = 50.0  # issue 30: abstracts a second
SCIFACT_BOUND_LINES = 100  # abstracts the bound row embeds (the full bench imports 3,000)
SCIFACT = Path(
    os.environ.get(
        "ENYAL_BENCH_SCIFACT",
        REPO.parent / "shared" / "data" / "scifact" / "scifact.memories.jsonl",
    )
)


def _import(ctx: Ctx, daemon: Daemon, path: Path) -> float:
    """Memories stored per second, start to exit; nan (with a note) if the import failed."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(BIN / "enyal"), "import", str(path), "--json"],
        env=env_for(daemon.home),
        capture_output=True,
        text=True,
    )
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        ctx.report.notes.append(f"enyal import of {path.name} failed: {proc.stderr[-300:]}")
        return float("nan")
    return float(json.loads(proc.stdout).get("stored", 0)) / dt


def _write(path: Path, lines: list[dict[str, str]]) -> None:
    with path.open("w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def _scifact(limit: int) -> list[str]:
    texts: list[str] = []
    with SCIFACT.open() as f:
        for line in f:
            texts.append(json.loads(line)["text"])
            if len(texts) == limit:
                break
    return texts


def run(ctx: Ctx, daemon: Daemon, n: int) -> None:
    cfg = ctx.cfg
    rep = ctx.report
    s = size(n)
    at_target = n == TARGET_AT
    rate, bound = Runs(), Runs()
    for r in range(cfg.import_runs):
        lines = corpus.base_texts(cfg.import_lines, seed=9000 + r)
        path = ctx.work / f"import-{r}.jsonl"
        # unique bodies: every line is stored, none is a dedup hit
        body = [
            {"content": f"{t} (imported {r}-{i})", "content_type": c}
            for i, (c, t) in enumerate(lines)
        ]
        _write(path, body)
        # right before the import, on the same texts: what embedding alone reaches
        bound.add(embed_bound.batched(ctx.engine, [line["content"] for line in body]))
        rate.add(_import(ctx, daemon, path))
    short = cfg.import_runs * cfg.import_lines
    rep.add(
        Row(
            "4",
            "`enyal import` throughput, short memories",
            s,
            rate,
            "/s",
            Target(">=", TARGET_RATE) if at_target else None,
            f"{cfg.import_lines:,}/run (16 words on average), {rep.machine.get('cores')} cores; "
            f"{rate.median / bound.median:.0%} of the bound below",
        )
    )
    rep.add(
        Row(
            "4",
            "  bound: embedding alone, the same texts",
            s,
            bound,
            "/s",
            note="the daemon's Embedder in this process, 2 threads batching as an import does",
        )
    )
    rss, hwm = daemon.rss()
    rep.add(
        Row(
            "6",
            f"daemon RSS after importing {short:,} short",
            s,
            Runs([rss]),
            "MB",
            note=f"peak {hwm:.0f} MB",
        )
    )
    if not SCIFACT.exists():
        rep.notes.append(
            f"SciFact not found at {SCIFACT} ($ENYAL_BENCH_SCIFACT): its rows are empty"
        )
        texts: list[str] = []
    else:
        texts = _scifact(cfg.scifact_lines)
    sci, sci_bound = Runs(), Runs()
    if texts:
        sci_bound.add(embed_bound.stored(ctx.engine, texts[:SCIFACT_BOUND_LINES]))
    per = max(1, -(-len(texts) // cfg.import_runs))
    for r, start in enumerate(range(0, len(texts), per)):
        path = ctx.work / f"scifact-{r}.jsonl"
        _write(path, [{"content": t} for t in texts[start : start + per]])
        sci.add(_import(ctx, daemon, path))
    share = f"; {sci.median / sci_bound.median:.0%} of the bound below" if texts else ""
    rep.add(
        Row(
            "4",
            "`enyal import` throughput, SciFact abstracts",
            s,
            sci,
            "/s",
            Target(">=", SCIFACT_TARGET) if at_target else None,
            f"{per:,}/run, ~1,500 characters each, embedded as passages{share}",
        )
    )
    rep.add(
        Row(
            "4",
            "  bound: embedding alone, the same abstracts",
            s,
            sci_bound,
            "/s",
            note=f"the first {min(len(texts), SCIFACT_BOUND_LINES)}, as stored (their passages), "
            "2 threads batching",
        )
    )
    rss, hwm = daemon.rss() if texts else (float("nan"), float("nan"))
    rep.add(
        Row(
            "6",
            f"daemon RSS after importing {len(texts):,} SciFact abstracts",
            s,
            Runs([rss]),
            "MB",
            Target("<=", RSS_TARGET_MB) if at_target else None,
            f"peak {hwm:.0f} MB; after the short imports above",
        )
    )

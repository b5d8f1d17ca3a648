"""1c. Filtered and as-of recall against unfiltered recall.

Every recall sends a query of its own: the daemon remembers a query's vector
(embedder/memo.py), so the same text sent six ways would be embedded once and the
other five would time a recall without its embedding. The kinds take their queries
from one pool in turn, and the order of the kinds rotates round by round, so load on
the shared machine and the queries' difficulty fall on every kind alike.
The goal is a p99 within 1.5x of unfiltered at 100k."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from benchlib import corpus, s_recall
from benchlib.config import Ctx
from benchlib.procs import Daemon
from benchlib.report import Row, Target, size
from benchlib.stats import Runs, pct
from benchlib.vocab import LANGS, TAGS

TARGET_AT = 100_000
TARGET_RATIO = 1.5
AS_OF_DAYS = 180  # the store's memories were created over the last 365 days: half existed

Params = Callable[[int], dict[str, Any]]


def _kinds() -> dict[str, Params]:
    as_of = (datetime.now(UTC) - timedelta(days=AS_OF_DAYS)).date().isoformat()
    return {
        "unfiltered": lambda i: {},
        "tag": lambda i: {"tags": [TAGS[i % len(TAGS)]]},
        "type": lambda i: {"content_type": corpus.CONTENT_TYPES[i % len(corpus.CONTENT_TYPES)]},
        "scope (project)": lambda i: {"scope": "project"},
        "metadata (where lang=…)": lambda i: {"where": {"lang": LANGS[i % len(LANGS)]}},
        f"as-of ({AS_OF_DAYS} days ago)": lambda i: {"as_of": as_of},
    }


def run(ctx: Ctx, daemon: Daemon, n: int) -> int:
    """Returns how many recalls the daemon served."""
    cfg = ctx.cfg
    skip = s_recall.used(cfg)
    kinds = _kinds()
    names = list(kinds)
    qs = corpus.questions(skip + cfg.filter_queries * len(names), seed=n)[skip:]
    lat: dict[str, list[float]] = {name: [] for name in names}
    conn = daemon.connect()
    try:
        for i in range(cfg.filter_queries):
            shift = i % len(names)
            for j, name in enumerate(names[shift:] + names[:shift]):
                q = qs[i * len(names) + j]
                params = {"query": q, "cwd": s_recall.PROJECT, **kinds[name](i)}
                t0 = time.perf_counter()
                conn.call_raw("recall", params)
                lat[name].append((time.perf_counter() - t0) * 1e3)
    finally:
        conn.close()
    s = size(n)
    rep = ctx.report
    base99, base50 = pct(lat["unfiltered"], 99), pct(lat["unfiltered"], 50)
    rep.add(
        Row(
            "1c",
            "recall unfiltered (baseline of the rows below), p99",
            s,
            Runs(),
            "ms",
            note=f"{len(qs)} distinct queries, one a recall; p50 {base50:.1f} ms",
            pooled=base99,
        )
    )
    for name in names[1:]:
        p99, p50 = pct(lat[name], 99), pct(lat[name], 50)
        rep.add(
            Row(
                "1c",
                f"recall {name}: p99 / unfiltered p99",
                s,
                Runs(),
                "×",
                Target("<=", TARGET_RATIO) if n == TARGET_AT else None,
                f"p99 {p99:.1f} ms, p50 {p50:.1f} ms ({p50 / base50:.2f}× unfiltered)",
                p99 / base99,
            )
        )
    return len(qs) * len(names)

"""scripts/bench: the orchestration. See scripts/bench --help."""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from benchlib import machine, s_agents, s_cli, s_cold, s_knn, s_memory, s_recall, s_writes
from benchlib.config import FULL, QUICK, Ctx
from benchlib.procs import Daemon
from benchlib.report import Report, size
from benchlib.store import Engine, cached_store, install, make_corpus

SECTIONS = ("recall", "knn", "cold", "cli", "writes", "agents", "memory")
COLD_MAX = 100_000  # the per-client server loads the whole store on each start: not at 1M


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="scripts/bench",
        description="Enyal's benchmarks: latency, scale and the shared-daemon advantage, "
        "side by side with the alternatives, on this machine. Prints a markdown table "
        "and writes JSON.",
    )
    ap.add_argument("--quick", action="store_true", help="CI smoke: 10k store, few runs (<1 min)")
    ap.add_argument("--1m", dest="million", action="store_true", help="also a 1M store (slow)")
    ap.add_argument("--sizes", help="override store sizes, e.g. 10000,100000")
    ap.add_argument("--only", help=f"comma-separated sections of {','.join(SECTIONS)}")
    ap.add_argument("--json", type=Path, help="where to write the JSON (default: cache dir)")
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("ENYAL_BENCH_CACHE", "~/.cache/enyal-bench")).expanduser(),
        help="embeddings and built stores are kept here between runs ($ENYAL_BENCH_CACHE)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the work dir (daemon logs, DBs)")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    cfg = QUICK if args.quick else FULL
    sizes = tuple(int(x) for x in args.sizes.split(",")) if args.sizes else cfg.sizes
    if args.million and 1_000_000 not in sizes:
        sizes = (*sizes, 1_000_000)
    cfg = replace(cfg, sizes=sizes)
    only = set(args.only.split(",")) if args.only else set(SECTIONS)
    work = Path(tempfile.mkdtemp(prefix="enyal-bench-"))
    report = Report(machine.describe(), cfg.as_dict())
    t0 = time.perf_counter()
    engine = Engine.load()
    ctx = Ctx(
        cfg, report, engine, make_corpus(engine, cfg.base_texts, args.cache), args.cache, work
    )
    c = ctx.corpus
    ctx.log(f"corpus ready: {len(c.texts):,} embedded texts in {c.embed_seconds:.1f} s")
    report.notes.append(
        f"Stored corpus: {len(c.texts):,} generated coding-agent memories embedded for real "
        "with the daemon's model; store memory i is text i mod that number, with its details "
        f"varied beyond it and its vector that text's embedding plus Gaussian noise "
        f"(sigma {c.sigma:.3f}, calibrated so cos(memory, its base) = {c.calibrated_cos:.3f}, the "
        "mean cosine between real embeddings of a text and of its detail variants). Loaded "
        "with enyal_daemon.service.bulk.load, daemon stopped. Queries are generated short "
        "questions, embedded by the daemon as part of each timed recall."
    )
    try:
        if "memory" in only:
            s_memory.empty_daemon(ctx)
        for i, n in enumerate(sizes):
            store, built = cached_store(engine, c, n, args.cache, ctx.log)
            if built:
                report.extra.setdefault("store_build_seconds", {})[str(n)] = round(built, 1)
            if "memory" in only:
                s_memory.storage(ctx, store, n)
            home = work / f"home-{size(n)}"
            install(store, home)
            daemon = Daemon.start(home)
            ctx.log(f"daemon on {n:,} memories up in {daemon.start_seconds:.2f} s")
            report.extra.setdefault("daemon_start_seconds", {})[str(n)] = daemon.start_seconds
            try:
                if "memory" in only:
                    s_memory.rss_row(ctx, daemon, n, "after start (index loaded)")
                served = 0
                if "recall" in only:
                    served = s_recall.run(ctx, daemon, n)
                    ctx.log(f"recall at {n:,} done")
                if "memory" in only and served:
                    s_memory.rss_row(ctx, daemon, n, f"after {served:,} recalls")
                if "knn" in only:
                    s_knn.run(ctx, home / "enyal.db", n)
                    ctx.log(f"knn at {n:,} done")
                if "cold" in only and n <= COLD_MAX:
                    s_cold.run(ctx, daemon, n)
                    ctx.log(f"cold start at {n:,} done")
                if i == 0:
                    for name, section in (
                        ("cli", s_cli),
                        ("writes", s_writes),
                        ("agents", s_agents),
                    ):
                        if name in only:
                            section.run(ctx, daemon, n)
                            ctx.log(f"{name} done")
            finally:
                daemon.stop()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report.extra["wall_seconds"] = round(time.perf_counter() - t0, 1)
    report.machine["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    end_commit = machine.commit()
    if end_commit != report.machine["commit"]:
        report.notes.append(
            f"The code changed during the run ({report.machine['commit']} at start, "
            f"{end_commit} at end): sections ran on different versions."
        )
    out = (
        args.json
        or args.cache / "results" / f"bench-{cfg.mode}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    )
    report.write_json(out)
    table = report.markdown()
    print(f"## Enyal benchmark ({cfg.mode}), {time.strftime('%Y-%m-%d %H:%M')}\n")
    print(machine.line(report.machine) + "\n")
    print(table + "\n")
    for note in report.notes:
        print(f"- {note}")
    print(f"\nJSON: {out}  (wall {report.extra['wall_seconds']} s)")
    if args.markdown:
        args.markdown.write_text(table + "\n")
    return 0

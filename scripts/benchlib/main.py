"""scripts/bench: the orchestration. See scripts/bench --help."""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from benchlib import (
    clients,
    machine,
    s_agents,
    s_cli,
    s_cold,
    s_filters,
    s_hookpaths,
    s_hooks,
    s_hub,
    s_import,
    s_knn,
    s_memory,
    s_recall,
    s_scifact,
    s_share,
    s_writes,
)
from benchlib.config import FULL, QUICK, Ctx, log
from benchlib.procs import BIN, Daemon
from benchlib.report import Report, size
from benchlib.store import Engine, cached_store, install, make_corpus

SECTIONS = (
    "recall",
    "filters",
    "knn",
    "cold",
    "cli",
    "hooks",
    "hookpaths",
    "writes",
    "import",
    "agents",
    "memory",
    "share",
    "hub",
    "scifact",
)
COLD_MAX = 100_000  # the per-client server loads the whole store on each start: not at 1M
# the write, import and RSS goals are set at 100k: writes run at the largest size up to it
WRITES_MAX = 100_000


Section = Callable[[Ctx, Daemon, int], None]


def corpus_note(base: int, sizes: tuple[int, ...], sigma: float, cos: float) -> str:
    real = [size(n) for n in sizes if n <= base]
    mixed = [size(n) for n in sizes if n > base]
    text = (
        f"Stored corpus: {base:,} distinct generated coding-agent memories, each embedded for "
        "real with the daemon's model (cached). "
    )
    if real:
        text += f"Stores of {', '.join(real)}: every vector is the real embedding of its own text. "
    if mixed:
        text += (
            f"Stores of {', '.join(mixed)}: the first {base:,} memories are real; memory i beyond "
            f"is text i mod {base:,} with its details varied and its vector that text's real "
            f"embedding plus Gaussian noise (sigma {sigma:.3f}, calibrated so cos(memory, its "
            f"base) = {cos:.3f}, the mean cosine between real embeddings of a text and of its "
            "detail variants). "
        )
    return text + (
        "Built with enyal_daemon.tools.bulk.load, daemon stopped, cached in the cache dir. "
        "Queries are distinct generated questions, embedded by the daemon inside each timed "
        "recall."
    )


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
    os.environ.setdefault("ENYAL_BENCH_PYCACHE", str(args.cache / "pycache"))
    # The model's 8-bit build is made once here, not by each daemon in its fresh home.
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))
    report = Report(machine.describe(), cfg.as_dict())
    meter = machine.LoadMeter()
    t0 = time.perf_counter()
    engine = Engine.load()
    client_bin = BIN
    if only & {"cli", "hooks", "hookpaths", "cold"}:
        client_bin, how = clients.client_bin(args.cache, log)
        report.notes.append(f"Client processes (sections 2, 3, 3b) are timed on {how}.")
    corpus_ = make_corpus(engine, cfg.base_texts, args.cache, log)
    ctx = Ctx(cfg, report, engine, corpus_, args.cache, work, client_bin)
    c = ctx.corpus
    ctx.log(f"corpus ready: {len(c.texts):,} embedded texts in {c.embed_seconds:.1f} s")
    report.notes.append(corpus_note(len(c.texts), sizes, c.sigma, c.calibrated_cos))
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        report.notes.append(
            "PYTHONDONTWRITEBYTECODE is set here; the processes the bench starts run without "
            "it and keep their bytecode under the cache dir (PYTHONPYCACHEPREFIX), as an "
            "installed package has it."
        )
    writes_at = max((x for x in sizes if x <= WRITES_MAX), default=sizes[0])
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
            hook_port = s_hookpaths.enable_http(home) if "hookpaths" in only else 0
            daemon = Daemon.start(home)
            ctx.log(f"daemon on {n:,} memories up in {daemon.start_seconds:.2f} s")
            report.extra.setdefault("daemon_start_seconds", {})[str(n)] = daemon.start_seconds
            try:
                if "memory" in only:
                    s_memory.rss_row(ctx, daemon, n, "after start (index loaded)")
                served = 0
                if "recall" in only:
                    served += s_recall.run(ctx, daemon, n)
                    ctx.log(f"recall at {n:,} done")
                if "filters" in only:
                    served += s_filters.run(ctx, daemon, n)
                    ctx.log(f"filtered recall at {n:,} done")
                if "memory" in only and served:
                    s_memory.rss_row(ctx, daemon, n, f"after {served:,} recalls", goal=True)
                if "knn" in only:
                    s_knn.run(ctx, home / "enyal.db", n)
                    ctx.log(f"knn at {n:,} done")
                if "hooks" in only:
                    s_hooks.run(ctx, daemon, n)
                    ctx.log(f"hooks at {n:,} done")
                if "hookpaths" in only:
                    s_hookpaths.run(ctx, daemon, n, hook_port)
                    ctx.log(f"hook paths at {n:,} done")
                if "cold" in only and n <= COLD_MAX:
                    s_cold.run(ctx, daemon, n)
                    ctx.log(f"cold start at {n:,} done")
                sections: list[tuple[str, Section]] = []
                if i == 0:
                    sections += [("cli", s_cli.run), ("agents", s_agents.run)]
                if n == writes_at:
                    # last at their size: they add memories, and the RSS goal reads the
                    # daemon after the SciFact import
                    sections += [("writes", s_writes.run), ("import", s_import.run)]
                if i == 0:
                    sections.append(("share", s_share.run))  # last: it adds 2,080 memories
                for name, section in sections:
                    if name in only:
                        section(ctx, daemon, n)
                        ctx.log(f"{name} at {n:,} done")
            finally:
                daemon.stop()
        if "hub" in only:
            # On a PostgreSQL of its own, at its own size: no store of the sizes'. After
            # their daemons stop, as SciFact: it times one daemon's recalls beside its
            # own sync, not beside another daemon's upkeep.
            s_hub.run(ctx)
            ctx.log("hub done")
        if "scifact" in only and cfg.scifact_claims:
            s_scifact.run(ctx)  # a store of its own: once, not per size
            ctx.log("recall on the SciFact store done")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report.extra["wall_seconds"] = round(time.perf_counter() - t0, 1)
    report.machine["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    report.machine["load"] = meter.stop()
    report.notes.append(machine.load_line(report.machine["load"]))
    report.notes.append(
        "Value: latency percentiles marked (pooled) are over every sample of every run; "
        "other values are the median of runs; min–max is over runs (or rounds, or pairs)."
    )
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

"""Where a hook call's time goes over MCP and HTTP, call by call, stage by stage (issue 29's
p99 <= 2x p50 on the paths of section 3c).

    cd scripts && ../.venv/bin/python -m benchlib.profile_hookpaths [--size 10000]
        [--events "pre-tool-use (path only),subagent-start"] [--rounds 30] [--plain]
        [--pause MS] [--gap MS] [--no-command] [--json FILE]

Runs section 3c's loop as scripts/bench does (the same inputs, a round of one command
hook, one `python -c pass`, 5 MCP calls and 5 HTTP POSTs, the clients from the bench's
regular install) against a daemon and an enyal-mcp started through hookpath_trace.py,
which notes the time at each stage inside them; this process notes its own send and
receive, its thread's run-queue wait, its garbage collections and the last child's exit.
For each event and path it prints each stage's median and the slowest 3 calls stage by
stage, with what overlapped them: a collection in any of the three processes, a wait for
a core, how soon after a child process exited. --plain starts both untraced (the
figures the bench would see, for an A/B of the tracing's own cost); --pause 0 times the
calls back to back as the bench did before its PAUSE, --gap a sleep before each path's
first call of a round only.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
now = time.perf_counter_ns
GCS: list[tuple[str, int, int]] = []  # this process's collections: (phase, generation, t)


def _gc(phase: str, info: dict[str, Any]) -> None:
    GCS.append((phase, int(info["generation"]), now()))


def _wait_ns() -> int:
    with open("/proc/thread-self/schedstat", "rb") as f:
        return int(f.read().split()[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--events", default="pre-tool-use (path only),subagent-start")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "enyal-bench")
    ap.add_argument("--plain", action="store_true", help="daemon and shim untraced")
    ap.add_argument("--no-command", action="store_true", help="no command hook, no bare start")
    ap.add_argument("--json", type=Path, help="write every call's stages here")
    ap.add_argument("--keep", action="store_true", help="keep the work dir (store, traces)")
    ap.add_argument(
        "--gap", type=float, default=0.0, help="ms slept before each path's first call a round"
    )
    ap.add_argument(
        "--pause",
        type=float,
        default=None,
        help="ms slept before every MCP and HTTP call (default: the bench's PAUSE; 0: none)",
    )
    args = ap.parse_args()
    os.environ.setdefault("ENYAL_CACHE_DIR", str(args.cache / "enyal-cache"))

    from benchlib import clients
    from benchlib.config import FULL
    from benchlib.procs import Daemon, env_for
    from benchlib.s_hookpaths import EVENTS, PAUSE, PER_ROUND, _input, _substituted, enable_http
    from benchlib.stdio_rpc import PROTOCOL, StdioClient
    from benchlib.store import Engine, cached_store, install, make_corpus
    from enyal_client.commands.hooks import mcp_input
    from enyal_protocol.hooks.token import hook_token

    client_bin, _ = clients.client_bin(args.cache, print)
    engine = Engine.load()
    store, _ = cached_store(
        engine,
        make_corpus(engine, FULL.base_texts, args.cache, print),
        args.size,
        args.cache,
        print,
    )
    del engine
    gc.collect()
    work = Path(tempfile.mkdtemp(prefix="enyal-hookpaths-"))
    traces = work / "traces"
    traces.mkdir()
    os.environ["ENYAL_TRACE_DIR"] = str(traces)
    trace = str(HERE / "hookpath_trace.py")
    if not args.plain:
        os.environ["ENYAL_BENCH_DAEMON"] = f"{sys.executable} {trace} daemon"
    home = work / "home"
    install(store, home)
    port = enable_http(home)
    daemon = Daemon.start(home)
    env = env_for(daemon.home)
    token = hook_token(daemon.paths)
    shim_argv = (
        [str(client_bin / "enyal-mcp")]
        if args.plain
        else [str(client_bin / "python"), trace, "shim"]
    )
    shim = StdioClient(shim_argv, env, subprocess.DEVNULL)
    hello = {"capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    shim.request("initialize", {**hello, "protocolVersion": PROTOCOL})
    shim.notify("notifications/initialized")
    gc.callbacks.append(_gc)
    calls: list[dict[str, Any]] = []
    last_exit = [0]
    counter = iter(range(1_000_000))

    def command(verb: str, data: dict[str, Any], note: dict[str, Any]) -> None:
        subprocess.run(
            [str(client_bin / "enyal-hook"), verb],
            input=json.dumps(data).encode(),
            env=env,
            capture_output=True,
            check=True,
        )
        last_exit[0] = now()

    def bare(verb: str, data: dict[str, Any], note: dict[str, Any]) -> None:
        subprocess.run([str(client_bin / "python"), "-c", "pass"], input=b"{}", env=env)
        last_exit[0] = now()

    def mcp(verb: str, data: dict[str, Any], note: dict[str, Any]) -> None:
        a = _substituted(mcp_input(verb), data)
        note["sent"] = now()  # the arguments built: what the bench's timer also holds
        result = shim.request("tools/call", {"name": "enyal_hook", "arguments": a})
        if result.get("isError"):
            raise RuntimeError(result)

    def post(verb: str, data: dict[str, Any], note: dict[str, Any]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        conn.connect()
        note["connected"] = now()
        conn.request("POST", f"/hook/{verb}", body=json.dumps(data).encode(), headers=headers)
        note["sent"] = now()
        reply = reply_ = conn.getresponse()
        reply_.read()
        conn.close()
        if reply.status != 200:
            raise RuntimeError(reply.status)

    paths = {"command": command, "python -c pass": bare, "mcp": mcp, "http": post}
    if args.no_command:
        del paths["command"], paths["python -c pass"]
    try:
        for name in args.events.split(","):
            verb = EVENTS[name]
            for way in paths:
                paths[way](verb, _input(name, next(counter), f"warm-{way}"), {})
            for rnd in range(args.rounds):
                for way, fn in paths.items():
                    for pos in range(PER_ROUND.get(way, 1)):
                        data = _input(name, next(counter))
                        if args.gap and pos == 0:
                            time.sleep(args.gap / 1e3)
                        pause = PAUSE if args.pause is None else args.pause / 1e3
                        if pause and way in PER_ROUND:
                            time.sleep(pause)
                        note: dict[str, Any] = {"event": name, "way": way, "round": rnd}
                        note |= {"pos": pos, "key": data["session_id"], "since_exit": 0}
                        w0 = _wait_ns()
                        note["t0"] = t0 = now()
                        fn(verb, data, note)
                        note["end"] = now()
                        note["client_runq"] = _wait_ns() - w0
                        note["since_exit"] = t0 - last_exit[0]
                        if way in ("mcp", "http"):
                            calls.append(note)
    finally:
        shim.close()
        daemon.stop()
        gc.callbacks.remove(_gc)
    report(calls, traces, args.json)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def _load(traces: Path) -> tuple[dict[str, dict[str, int]], list[tuple[str, int, int, int]]]:
    """Per session key, each stage's time (both processes' notes); every collection as
    (process, generation, start, end)."""
    stages: dict[str, dict[str, int]] = {}
    collections: list[tuple[str, int, int, int]] = []
    ids: dict[Any, str] = {}
    for f in sorted(traces.glob("*.json")):
        role = f.name.split("-")[0]
        notes = json.loads(f.read_text())["notes"]
        started: dict[int, int] = {}
        for n in notes:
            if n[0] == "gc":
                if n[1] == "start":
                    started[n[2]] = n[3]
                elif n[2] in started:
                    collections.append((role, n[2], started.pop(n[2]), n[3]))
            elif n[0] == "mcp-line":
                ids[n[1]] = n[2]
                stages.setdefault(n[2], {})["line"] = n[3]
            elif n[0] in ("http", "mcp"):
                stages.setdefault(n[1], {})[n[2]] = n[3]
        for n in notes:
            if n[0] == "mcp-id" and n[1] in ids:
                stages[ids[n[1]]]["written"] = n[3]
    return stages, collections


SPANS = {
    "http": [
        ("connect", "t0", "connected"),
        ("send", "connected", "sent"),
        ("accept", "t0", "accepted"),
        ("read", "accepted", "read"),
        ("to_thread", "read", "run"),
        ("run", "run", "ran"),
        ("reply", "ran", "written"),
        ("receive", "written", "end"),
    ],
    "mcp": [
        ("args", "t0", "sent"),
        ("to_shim", "sent", "line"),
        ("to_worker", "line", "run"),
        ("run", "run", "ran"),
        ("reply", "ran", "written"),
        ("receive", "written", "end"),
    ],
}


def report(calls: list[dict[str, Any]], traces: Path, out: Path | None) -> None:
    stages, collections = _load(traces)
    pairs = zip(GCS[::2], GCS[1::2], strict=False)  # (start, stop) of each collection
    collections += [("client", g, a, b) for (_, g, a), (_, _, b) in pairs]
    for call in calls:
        call |= stages.get(call["key"], {})
        call["total"] = call["end"] - call["t0"]
        call["gcs"] = [
            f"{who} gen{g} {(b - a) / 1e3:.0f}us"
            for who, g, a, b in collections
            if a < call["end"] and b > call["t0"]
        ]
    if out:
        out.write_text(json.dumps(calls))
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for call in calls:
        groups.setdefault((call["event"], call["way"]), []).append(call)
    for (event, way), group in groups.items():
        totals = sorted(c["total"] for c in group)
        p50 = statistics.median(totals) / 1e6
        p99 = _pct(totals, 99) / 1e6
        print(f"\n## {event} via {way}: {len(group)} calls, p50 {p50:.3f} ms, p99 {p99:.3f} ms")
        spans = SPANS[way]
        names = ["total", *(s[0] for s in spans), "c_runq", "s_runq", "since_exit", "pos"]
        print(" ".join(f"{n:>10}" for n in ["", *names]) + "  gc")
        row = {s[0]: statistics.median(_span(c, s) for c in group) for s in spans}
        print(_line("median", statistics.median(totals), row, {}))
        first = [c for c in group if c["pos"] == 0]
        for label, part in (("pos 0", first), ("pos > 0", [c for c in group if c["pos"] > 0])):
            if part:
                row = {s[0]: statistics.median(_span(c, s) for c in part) for s in spans}
                print(_line(label, statistics.median(c["total"] for c in part), row, {}))
        for c in sorted(group, key=lambda c: -c["total"])[:3]:
            print(_line(f"r{c['round']}", c["total"], {s[0]: _span(c, s) for s in spans}, c))
        _overlaps(group, p50 * 2e6)


def _overlaps(group: list[dict[str, Any]], bound: float) -> None:
    """Which calls had a collection or followed a child's exit, and how they fared: the
    median of each set, and how many of them went over the p99 bound (2x p50)."""
    sets = {
        "a collection in the client": [c for c in group if any("client" in g for g in c["gcs"])],
        "a collection in the shim": [c for c in group if any("shim" in g for g in c["gcs"])],
        "a collection in the daemon": [c for c in group if any("daemon" in g for g in c["gcs"])],
        "first after the other paths (pos 0)": [c for c in group if c["pos"] == 0],
        "the others (pos > 0)": [c for c in group if c["pos"] > 0],
        "client waited for a core > 50 us": [c for c in group if c["client_runq"] > 50_000],
    }
    over = [c for c in group if c["total"] > bound]
    print(f"    over 2x p50: {len(over)} of {len(group)}")
    for label, calls in sets.items():
        if calls:
            med = statistics.median(c["total"] for c in calls) / 1e3
            n_over = sum(1 for c in calls if c["total"] > bound)
            print(f"    {label}: {len(calls)} calls, median {med:.0f} us, {n_over} over 2x p50")


def _span(call: dict[str, Any], span: tuple[str, str, str]) -> float:
    _, a, b = span
    return float(call[b] - call[a]) if a in call and b in call else float("nan")


def _pct(xs: list[int], q: float) -> float:
    k = (len(xs) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def _line(label: str, total: float, row: dict[str, float], call: dict[str, Any]) -> str:
    cells = [total, *row.values()]
    text = f"{label:>10} " + " ".join(f"{x / 1e3:10.0f}" for x in cells)
    if call:
        extra = [call["client_runq"], call.get("runq_ns", float("nan")), call["since_exit"]]
        text += " " + " ".join(f"{x / 1e3:10.0f}" for x in extra) + f" {call['pos']:>10}"
        text += "  " + ", ".join(call["gcs"])
    return text


if __name__ == "__main__":
    main()

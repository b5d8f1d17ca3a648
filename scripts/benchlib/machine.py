"""What the benchmark ran on: cores, memory, load, and the versions that matter."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _mem_total_gb() -> float:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    return int(line.split()[1]) / 1e6
    except OSError:
        pass
    return float("nan")


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


def commit() -> str:
    """The repository's HEAD, with '+dirty' when the working tree differs from it."""
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + ("+dirty" if dirty else "")


def describe() -> dict[str, Any]:
    import apsw
    import numpy

    from enyal_daemon.store import db

    try:
        import sqlite_vec

        c = apsw.Connection(":memory:")
        c.enable_load_extension(True)
        c.load_extension(sqlite_vec.loadable_path())
        row = c.execute("SELECT vec_version()").fetchone()
        vec = str(row[0]) if row else "?"
        c.close()
    except Exception as exc:  # report, do not fail the run
        vec = f"? ({exc})"
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "mem_gb": round(_mem_total_gb(), 1),
        "load_avg_at_start": [round(x, 2) for x in os.getloadavg()],
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "sqlite": db.sqlite_version(),
        "sqlite_vec": vec,
        "apsw": _version("apsw"),
        "onnxruntime": _version("onnxruntime"),
        "numpy": numpy.__version__,
        "tokenizers": _version("tokenizers"),
        "enyal": _version("enyal"),
        "commit": commit(),
    }


def line(m: dict[str, Any]) -> str:
    return (
        f"commit {m['commit']}; {m['cores']} cores ({m['cpu']}), {m['mem_gb']} GB, {m['os']}; "
        f"Python {m['python']}, "
        f"SQLite {m['sqlite']}, sqlite-vec {m['sqlite_vec']}, onnxruntime {m['onnxruntime']}, "
        f"numpy {m['numpy']}, apsw {m['apsw']}; load average (1/5/15 min) at start "
        f"{' '.join(str(x) for x in m['load_avg_at_start'])}, at end "
        f"{' '.join(str(x) for x in m.get('load_avg_at_end', []))}"
    )


def _busy_seconds() -> float:
    """CPU seconds the whole machine has been busy since boot (all cores, from /proc/stat)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    # user nice system idle iowait irq softirq steal ...: everything but idle and iowait
    busy = sum(fields[:3]) + sum(fields[5:8])
    return busy / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    """CPU seconds of this process and of its children that have been waited for (the
    daemons, CLIs and agents the bench starts are all waited for before the end)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class LoadMeter:
    """How loaded the shared machine was while the bench ran: the 1-min load average
    sampled every few seconds, and the CPU that processes other than the bench's used
    (machine busy time minus the bench's own), in cores on average."""

    def __init__(self, every: float = 5.0) -> None:
        self._every = every
        self._samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="bench-load", daemon=True)
        self._t0 = time.perf_counter()
        self._busy0 = _busy_seconds()
        self._own0 = _own_seconds()
        self._thread.start()

    def _sample(self) -> None:
        while True:
            self._samples.append(os.getloadavg()[0])
            if self._stop.wait(self._every):
                return

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        wall = time.perf_counter() - self._t0
        busy = _busy_seconds() - self._busy0
        own = _own_seconds() - self._own0
        xs = self._samples or [float("nan")]
        return {
            "wall_s": round(wall, 1),
            "load1_min": round(min(xs), 2),
            "load1_mean": round(sum(xs) / len(xs), 2),
            "load1_max": round(max(xs), 2),
            "machine_busy_cores": round(busy / wall, 2),
            "bench_cores": round(own / wall, 2),
            "others_cores": round(max(0.0, busy - own) / wall, 2),
        }


def load_line(load: dict[str, float]) -> str:
    return (
        f"Load during the run ({load['wall_s']:.0f} s): 1-min load average "
        f"{load['load1_min']}–{load['load1_max']} (mean {load['load1_mean']}, the bench's own "
        f"work included); CPU busy {load['machine_busy_cores']} cores on average, of which "
        f"the bench {load['bench_cores']} and other processes {load['others_cores']}."
    )

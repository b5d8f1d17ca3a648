"""What the benchmark ran on: cores, memory, load, and the versions that matter."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
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
        vec = str(c.execute("SELECT vec_version()").fetchone()[0])
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

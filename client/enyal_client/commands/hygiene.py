"""`enyal scan [--fix]`: secrets stored before redaction (or while it was off)."""

from __future__ import annotations

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Registry, Result, on_daemon

FLAGS = {"fix": "--fix", "limit": "--limit"}


def cmd_scan(c: Connection, a: Args) -> Result:
    r = ct.call(c, "scan", {"fix": a.fix, "limit": a.limit}, p.ScanResult, FLAGS)
    lines = [f"{h.id}  {_kinds(h.kinds)}  in {', '.join(h.fields)}" for h in r.entries]
    if r.affected > len(r.entries):
        lines.append(f"… and {r.affected - len(r.entries)} more (--limit)")
    summary = f"scanned {r.scanned} entries: {r.affected} hold secrets"
    if r.kinds:
        summary += f" ({_kinds(r.kinds)})"
    if r.queries:
        summary += f"; {r.queries} logged queries hold secrets"
    lines.append(summary)
    if a.fix and (r.affected or r.queries):
        lines.append(f"redacted {r.fixed} entries (history included) and {r.queries} queries")
        if r.fixed < r.affected:
            lines.append("some entries changed while scanning: run `enyal scan --fix` again")
    elif r.affected or r.queries:
        lines.append("nothing changed: `enyal scan --fix` redacts them (a version is kept)")
    return r, "\n".join(lines)


def _kinds(kinds: dict[str, int]) -> str:
    return ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in kinds.items())


def redacted_line(found: dict[str, int]) -> str:
    """What the daemon redacted on a write, said so the user knows the stored text differs."""
    n = sum(found.values())
    noun = "secret" if n == 1 else "secrets"
    return f"  redacted {n} {noun} before storing ({_kinds(found)}); the value was not kept"


def register(reg: Registry) -> None:
    s = reg.verb(
        "scan",
        "find secrets stored before redaction (or while it was off); --fix redacts them",
        on_daemon(cmd_scan),
    )
    s.add_argument("--fix", action="store_true", help="redact what is found, history included")
    s.add_argument(
        "--limit", type=ct.number(p.ScanParams, "limit"), default=100, help="entries to list"
    )

"""`enyal log TEXT` appends to today's log of the project; `enyal log --show [--date D]`
prints a day. (`enyal logs` is the daemon's own log file.)"""

from __future__ import annotations

import os

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Registry, Result, UsageError, drop_none, on_daemon
from .hygiene import redacted_line

FLAGS = {"text": "TEXT", "date": "--date"}


def cmd_log(c: Connection, a: Args) -> Result:
    if a.show or a.date:
        if a.text:
            raise UsageError("give either TEXT to append or --show [--date D], not both")
        params = drop_none({"date": a.date, "cwd": os.getcwd()})
        day = ct.call(c, "log_show", params, p.LogShowResult, FLAGS)
        body = "\n".join(day.lines) if day.lines else "(nothing logged)"
        if day.quarantined:
            held = "line" if day.quarantined == 1 else "lines"
            body += f"\n{day.quarantined} {held} quarantined: enyal review --kind quarantined"
        return day, f"# {day.date}  {day.project}\n{body}"
    if not a.text:
        raise UsageError("give the TEXT to log, or --show")
    params = {"text": " ".join(a.text), "written_by": "user", "cwd": os.getcwd()}
    r = ct.call(c, "log_append", params, p.LogAppendResult, FLAGS)
    text = f"{r.date} {r.line[2:]}"
    return r, f"{redacted_line(r.redacted)}\n{text}" if r.redacted else text


def register(reg: Registry) -> None:
    lg = reg.verb(
        "log", "append to today's log of the project, or --show a day", on_daemon(cmd_log)
    )
    lg.add_argument("text", nargs="*", help="the line to append")
    lg.add_argument("--show", action="store_true", help="print today's log (or --date's)")
    lg.add_argument("--date", metavar="YYYY-MM-DD", help="with --show: that day")

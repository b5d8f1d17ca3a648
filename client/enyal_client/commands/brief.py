"""`enyal brief`: what an agent should know starting work here, as Markdown."""

from __future__ import annotations

import os

from enyal_protocol import wire as p

from ..transport import Connection
from . import contract as ct
from .base import Args, Registry, Result, drop_none, on_daemon

FLAGS = {"path": "--path"}


def brief_params(
    path: str | None, budget_tokens: int | None, record: bool = True
) -> dict[str, object]:
    return drop_none(
        {
            "path": path,
            "budget_tokens": budget_tokens,
            "record": None if record else False,
            "cwd": os.getcwd(),
        }
    )


def cmd_brief(c: Connection, a: Args) -> Result:
    params = brief_params(a.path, a.budget_tokens, not a.no_record)
    r = ct.call(c, "brief", params, p.BriefResult, FLAGS)
    return r, r.markdown


def register(reg: Registry) -> None:
    B = p.BriefParams
    b = reg.verb("brief", "what an agent should know starting work here", on_daemon(cmd_brief))
    b.add_argument("--path", metavar="DIR", help="a directory of the project (default: here)")
    b.add_argument(
        "--budget-tokens",
        type=ct.number(B, "budget_tokens"),
        metavar="N",
        help="at most N tokens (default 1500)",
    )
    b.add_argument(
        "--no-record",
        action="store_true",
        help="do not count this brief as seen (the next still shows changes since the last)",
    )

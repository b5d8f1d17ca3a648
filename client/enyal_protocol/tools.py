"""The daemon's tools: `python -m enyal_daemon <tool> ...`, the work only the daemon's
libraries can do (hashing and fetching the model, re-embedding, the doctor's SQLite and
database checks), run by the CLI as a subprocess so that the client never imports them.

A tool writes exactly one JSON document on stdout: on exit 0 its result (the Structs
below), on EXIT_FAILED or exits.EXIT_ALREADY_RUNNING (`reindex` while a daemon serves
the database) a ToolError. Its stderr is the user's: progress, and a traceback if it
crashes. exits.EXIT_INTERRUPTED means Ctrl-C stopped it and it has said so on stderr.
"""

from __future__ import annotations

import argparse
from typing import Literal

from msgspec import Struct

# The first word of a `python -m enyal_daemon` command line that runs a tool, not the daemon.
TOOLS = ("model", "reindex", "doctor")

EXIT_FAILED = 1

# The spawner holds the tool's stdin open and never writes to it: the tool ends when it
# reads EOF, so killing `enyal` (even with SIGKILL) stops a reindex or download it ran.
LIFELINE_FLAG = "--lifeline"

REINDEX_BATCH_DEFAULT = 64
REINDEX_BATCH_MAX = 4096  # one transaction; bigger batches only hold the writer longer


def batch_size(text: str) -> int:
    """--batch-size as both `enyal reindex` and the daemon's tool parse it."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= n <= REINDEX_BATCH_MAX:
        raise argparse.ArgumentTypeError(f"must be between 1 and {REINDEX_BATCH_MAX}")
    return n


class ToolError(Struct, frozen=True):
    message: str


class ModelSource(Struct, frozen=True, omit_defaults=True):
    """One place the model is looked for. ok is None when its files were not hashed
    (absent, or not the selected one during `status`)."""

    source: str
    model: str
    tokenizer: str
    present: bool
    selected: bool
    ok: bool | None = None
    model_id: str | None = None
    sha256: str | None = None
    error: str | None = None


class ModelSources(Struct, frozen=True):
    """`model status` and `model verify`; database is what the database recorded about its
    vectors' model (status only, None without a database)."""

    sources: list[ModelSource]
    database: dict[str, str] | None = None


class ModelLocation(Struct, frozen=True):
    model: str
    tokenizer: str
    source: str
    model_id: str


class ModelFetched(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """fetched is False when the pinned files were already in place (no sha256, no url)."""

    fetched: bool
    model_id: str
    sha256: str | None = None
    dir: str
    url: str | None = None


class Reindexed(Struct, frozen=True):
    action: Literal["reindexed", "up to date", "none"]  # none: there is no database
    total: int
    model_id: str | None = None
    previous: str | None = None
    reembedded: int = 0
    resumed_at: int = 0


class Check(Struct):
    """One line of `enyal doctor`: what it saw, and for anything not ok what fixes it."""

    name: str
    status: Literal["ok", "warn", "fail"]
    detail: str
    fix: str | None = None


class Checks(Struct, frozen=True):
    checks: list[Check]

"""The bearer token of the daemon's hook endpoint ([hooks] http = true): random, made
once and kept in the config folder (0600), so the daemon and `enyal hooks token` agree
across restarts and the ENYAL_HOOK_TOKEN a user exported for Claude Code stays good."""

from __future__ import annotations

import contextlib
import secrets
from pathlib import Path

from ..paths import Paths
from ..private import make_private_dirs, open_private

NAME = "hook-token"


def token_file(paths: Paths) -> Path:
    return paths.config_dir / NAME


def hook_token(paths: Paths) -> str:
    """The token, made on first use (32 random bytes, URL-safe)."""
    path = token_file(paths)
    with contextlib.suppress(FileNotFoundError):
        text = path.read_text().strip()
        if len(text) >= 32:
            return text
    make_private_dirs(path.parent)
    token = secrets.token_urlsafe(32)
    with open_private(str(path)) as f:
        f.write(token.encode() + b"\n")
    return token

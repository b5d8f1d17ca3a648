"""The kinds of memory remember and update take, apart from wire.py so that config.py
(its per-kind decay keys) imports no msgspec: every `enyal hook EVENT` reads the config."""

from __future__ import annotations

from typing import Literal

MemoryType = Literal["fact", "preference", "decision", "convention", "pattern"]
CONTENT_TYPES: tuple[MemoryType, ...] = ("fact", "preference", "decision", "convention", "pattern")

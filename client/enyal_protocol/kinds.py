"""The kinds of memory remember and update take, apart from wire.py so that config.py
(its per-kind decay keys) imports no msgspec: every `enyal hook EVENT` reads the config."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own constant would import typing: records.py says why
if TYPE_CHECKING:
    from typing import Literal

    MemoryType = Literal["fact", "preference", "decision", "convention", "pattern"]

CONTENT_TYPES: tuple[MemoryType, ...] = ("fact", "preference", "decision", "convention", "pattern")


def __getattr__(name: str) -> object:
    """MemoryType at run time, for the wire's Structs (msgspec checks values against it),
    made when first asked for: the clients that read only CONTENT_TYPES (config.py, so
    every command hook) import no typing for it."""
    if name == "MemoryType":
        from typing import Literal

        globals()["MemoryType"] = memory_type = Literal[CONTENT_TYPES]
        return memory_type
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

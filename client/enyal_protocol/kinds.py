"""The kinds of memory remember and update take, apart from wire.py so that config.py
(its per-kind decay keys) imports no msgspec: every `enyal hook EVENT` reads the config."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own constant would import typing: records.py says why
if TYPE_CHECKING:
    from typing import Literal

    MemoryType = Literal["fact", "preference", "decision", "convention", "pattern"]

CONTENT_TYPES: tuple[MemoryType, ...] = ("fact", "preference", "decision", "convention", "pattern")

# The metadata key naming the hub device whose change brought a memory's text (issue 28):
# the daemon sets it on a pull, the clients show it beside `written_by`. Here, not in
# wire.py: recall's text (recall_text.py) reads it on the lean path, which has no msgspec.
HUB_DEVICE = "hub_device"
# And the hub role whose change it was (the hub sets it: no member can claim another's).
HUB_AUTHOR = "hub_author"
# The metadata key naming who committed a memory read from a repository's `.enyal/`.
REPOSITORY_AUTHOR = "repository_author"


def written_by(written: str | None, metadata: dict[str, object] | None) -> str:
    """Who wrote a memory, as every client shows it: for one pulled from the team hub,
    with the device it came from (its id as `enyal hub status` shows it, cut as ids are)
    and the hub role that sent it; for one read from a repository, who committed it
    where git says."""
    device = (metadata or {}).get(HUB_DEVICE)
    on = f" on hub device {device[:8]}" if isinstance(device, str) and device else ""
    role = (metadata or {}).get(HUB_AUTHOR)
    if on and isinstance(role, str) and role:
        on += f" of hub role {role}"
    author = (metadata or {}).get(REPOSITORY_AUTHOR)
    if written == "repository" and isinstance(author, str) and author:
        on += f" ({author})"
    return f"{written or 'unknown'}{on}"


def __getattr__(name: str) -> object:
    """MemoryType at run time, for the wire's Structs (msgspec checks values against it),
    made when first asked for: the clients that read only CONTENT_TYPES (config.py, so
    every command hook) import no typing for it."""
    if name == "MemoryType":
        from typing import Literal

        globals()["MemoryType"] = memory_type = Literal[CONTENT_TYPES]
        return memory_type
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

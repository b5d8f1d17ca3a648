"""Text every frame can carry: JSON may escape a lone surrogate (`"\\ud83d"`, an emoji
cut in two; JavaScript's JSON.stringify writes one for such a string) and Python's
json and surrogateescape'd stdin decode it, but UTF-8, and so no frame to the daemon,
cannot hold one (UnicodeEncodeError, or msgspec's "malformed JSON")."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:
    from typing import Any


def well_formed(value: Any) -> Any:
    """`value` (JSON data) with each lone surrogate in its strings replaced by "?"."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {well_formed(k): well_formed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [well_formed(v) for v in value]
    return value

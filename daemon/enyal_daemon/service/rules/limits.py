"""Limits on what a client may store: checked before anything is embedded or written.

They protect the daemon as much as the data: content of any size would be
embedded (256 tokens are read) and stored whole, and metadata nested near
msgspec's recursion limit decodes from a request but cannot be encoded again
inside a bigger response (an export page, a recall), which would leave every
such answer unsendable for good.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...errors import InvalidValue, TooLarge

MAX_CONTENT_BYTES = 64 * 1024
MAX_METADATA_BYTES = 64 * 1024
MAX_METADATA_DEPTH = 32


def check_content(content: str) -> None:
    if not content.strip():
        raise InvalidValue("content is empty")
    if "\x00" in content:
        raise InvalidValue("content must not contain NUL bytes")
    size = len(content.encode("utf-8", "surrogatepass"))
    if size > MAX_CONTENT_BYTES:
        raise TooLarge(f"content is {size} bytes; the limit is {MAX_CONTENT_BYTES}")
    try:
        content.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidValue("content is not valid Unicode (lone surrogate)") from None


def check_metadata(metadata: dict[str, Any]) -> None:
    # Depth first: a value nested near msgspec's recursion limit decodes from a request but
    # cannot be encoded again inside a bigger response (an export page, a recall), which
    # would leave every such answer unsendable for good.
    if _depth(metadata) > MAX_METADATA_DEPTH:
        raise TooLarge(f"metadata is nested deeper than {MAX_METADATA_DEPTH} levels")
    if len(msgspec.json.encode(metadata)) > MAX_METADATA_BYTES:
        raise TooLarge(f"metadata is larger than {MAX_METADATA_BYTES} bytes")


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in a decoded JSON value (iterative: no recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level)
            if level > MAX_METADATA_DEPTH:
                break
            stack.extend((child, level + 1) for child in item)
    return deepest

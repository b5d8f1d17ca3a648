"""Tool schemas, derived from the protocol Structs so a bound or an enum is written once.

MCP wants each tool's inputSchema and outputSchema to be one self-contained
object schema, so the $refs msgspec emits are inlined here.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import msgspec

_REF_PREFIX = "#/$defs/"


def object_schema(struct: Any, hidden: Collection[str] = ()) -> dict[str, Any]:
    """The JSON Schema of a Struct type, $refs inlined, without the `hidden` properties."""
    if not (isinstance(struct, type) and issubclass(struct, msgspec.Struct)):
        raise TypeError(f"{struct!r} is not a msgspec Struct type")
    (root,), defs = msgspec.json.schema_components([struct], ref_template=_REF_PREFIX + "{name}")
    schema: dict[str, Any] = _inline(root, defs, ())
    if schema.get("type") != "object":
        raise TypeError(f"{struct.__name__} does not describe a JSON object")
    schema.pop("title", None)  # the tool's own name and title say it better
    if hidden:
        schema["properties"] = {k: v for k, v in schema["properties"].items() if k not in hidden}
        if "required" in schema:
            schema["required"] = [k for k in schema["required"] if k not in hidden]
    return schema


def _inline(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    """A fresh copy of `node` with every local $ref replaced by its definition."""
    if isinstance(node, list):
        return [_inline(x, defs, seen) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        name = ref.removeprefix(_REF_PREFIX)
        if name in seen:
            # A recursive type has no finite inlined form; it would need $defs kept.
            raise ValueError(f"cannot inline the recursive schema of {name}")
        target = _inline(defs[name], defs, (*seen, name))
        siblings = {k: _inline(v, defs, seen) for k, v in node.items() if k != "$ref"}
        return {**target, **siblings}
    return {k: _inline(v, defs, seen) for k, v in node.items()}

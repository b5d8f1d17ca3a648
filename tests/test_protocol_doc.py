"""docs/PROTOCOL.md held to the params Structs of wire.METHODS: in each method's section,
the row of each param states the bounds its Struct declares (msgspec Meta ge/le,
min_length/max_length), the default it has, or "required" when it has none. A row that
says "as for `recall`" is held to recall's row instead. (test_docs.py checks the names.)

The integrator reruns this after merging new params: each failure names the method, the
field and what its row lacks."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest

from enyal_protocol import wire as p
from test_docs import PROTOCOL_MD, section

_AS_FOR = re.compile(r"as for `([a-z_]+)`")


def _cells(row: str) -> list[str]:
    """A table row's cells, an escaped `\\|` (in `a` \\| `b`) kept inside its cell."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| `")]


def row_of(method: str, field: str) -> str:
    """The table row of `method`'s section whose first cell names `field`, following one
    "as for `other`" to the other method's row."""
    for row in _rows(section(method)):
        cells = _cells(row)
        if f"`{field}`" in cells[0]:
            other = _AS_FOR.search(row)
            if other and other.group(1) != method and not cells[1]:
                return row_of(other.group(1), field)
            return row
    raise AssertionError(f"{method}: param {field} has no row in its table in PROTOCOL.md")


# An entry id's bounds are said once, in the "Ids:" paragraph, not on every id's row.
_ID = mi.type_info(p.EntryId)
assert isinstance(_ID, mi.Metadata) and isinstance(_ID.type, mi.StrType)
# An upper bound this large only keeps a number inside SQLite's integer: not a documented limit.
_MACHINE = 2**31


def _nums(v: float) -> list[str]:
    """The ways PROTOCOL.md writes a number: 0.85 or 0.80; 1 for 1.0; 36,500 or 1000."""
    if isinstance(v, float) and not v.is_integer():
        return [repr(v), f"{v:.2f}"]
    return [f"{int(v):,}", str(int(v))]


def test_the_ids_paragraph_states_an_ids_bounds() -> None:
    ids = re.search(r"^- Ids:(.*?)(?=^- )", PROTOCOL_MD, re.S | re.M)
    assert ids, "PROTOCOL.md has no '- Ids:' paragraph"
    lo, hi = _ID.type.min_length, _ID.type.max_length
    assert f"{lo}–{hi} characters" in ids.group(1), (
        f"the Ids paragraph must say {lo}–{hi} characters"
    )


def _bounds(lo: float | None, hi: float | None) -> list[str]:
    """The ways PROTOCOL.md writes a bound (any one will do)."""
    if lo is not None and hi is not None:
        return [f"{a}–{b}" for a in _nums(lo) for b in _nums(hi)]
    if hi is not None:
        return [f"≤ {b}" for b in _nums(hi)]
    if lo is not None:
        return [f"≥ {a}" for a in _nums(lo)]
    return []


def _unwrap(t: mi.Type) -> mi.Type:
    """T | None -> T, and T with a description (Metadata) -> T: the bounds are T's."""
    while isinstance(t, mi.Metadata):
        t = t.type
    if isinstance(t, mi.UnionType):
        rest = [x for x in t.types if not isinstance(x, mi.NoneType)]
        if len(rest) == 1:
            return _unwrap(rest[0])
    return t


def _unwrap_optional(t: mi.Type) -> mi.Type:
    """EntryId | None, described or not -> EntryId (its own Metadata kept)."""
    while isinstance(t, mi.Metadata) and t != _ID:
        t = t.type
    if isinstance(t, mi.UnionType):
        rest = [x for x in t.types if not isinstance(x, mi.NoneType)]
        if len(rest) == 1:
            return rest[0]
    return t


def _declared_bounds(t: mi.Type) -> list[tuple[str, list[str]]]:
    """(what, the ways to write it) for each bound the type declares, its items' too."""
    if _unwrap_optional(t) == _ID:
        return []
    t = _unwrap(t)
    out: list[tuple[str, list[str]]] = []
    if isinstance(t, mi.IntType | mi.FloatType):
        lo = t.ge if t.ge is not None else None
        hi = t.le if t.le is not None and t.le < _MACHINE else None
        if lo is not None or hi is not None:
            out.append((f"bounds ge={lo} le={hi}", _bounds(lo, hi)))
    elif isinstance(t, mi.StrType | mi.ListType | mi.DictType):
        lo, hi = t.min_length, t.max_length
        if lo == 1 and hi is None:
            lo = None  # "not empty" is said in words ("required", "1 byte")
        if lo is not None or hi is not None:
            out.append((f"length min={lo} max={hi}", _bounds(lo, hi)))
        if isinstance(t, mi.ListType):
            out += [(f"each item's {w}", ways) for w, ways in _declared_bounds(t.item_type)]
    return out


def _default_forms(default: Any) -> list[str]:
    if isinstance(default, bool):
        return ["false", "true"][default : default + 1]
    if default is None:
        return ["null"]
    if isinstance(default, int | float):
        return [*_nums(default), repr(default)]
    if isinstance(default, str):
        return [f"`{default}`", default]
    return [msgspec.json.encode(default).decode()]


def _cases() -> list[tuple[str, str]]:
    return [(m, f) for m in sorted(p.METHODS) for f in p.METHODS[m].params.__struct_fields__]


@pytest.mark.parametrize(("method", "field"), _cases())
def test_protocol_md_states_each_params_bounds_and_default(method: str, field: str) -> None:
    info = mi.type_info(p.METHODS[method].params)
    assert isinstance(info, mi.StructType)
    spec = next(f for f in info.fields if f.name == field)
    row = row_of(method, field)
    cells = _cells(row)
    missing = [
        f"{what} (write one of {list(dict.fromkeys(ways))})"
        for what, ways in _declared_bounds(spec.type)
        if not any(w in row for w in ways)
    ]
    if spec.required:
        if "required" not in row:
            missing.append('"required" (it has no default)')
    elif spec.default is None:
        # Absent means null: the type cell says so (`string \\| null`), a default cell may
        # say what the daemon does then ("from `cwd`", "today").
        if "null" not in cells[1]:
            missing.append('"null" in its type (its default is null)')
    else:
        default = spec.default if spec.default is not msgspec.NODEFAULT else spec.default_factory()
        forms = _default_forms(default)
        cell = cells[2] if len(cells) > 2 else ""  # the default column
        if not any(f in cell for f in forms):
            missing.append(
                f"the default {default!r} in its default cell (one of {list(dict.fromkeys(forms))})"
            )
    assert not missing, (
        f"PROTOCOL.md, {method}: param {field}'s row lacks "
        + "; ".join(missing)
        + f"\n  row: {row}"
    )

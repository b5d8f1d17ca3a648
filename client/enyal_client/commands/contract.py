"""The CLI's side of the typed contract: allowed values and bounds come from the
protocol's Structs (never restated here), params are checked against them before
anything is sent, and replies are decoded into the result Structs.

A renamed field or a changed bound in `enyal_protocol.wire` therefore shows up in
argparse's choices and in mypy, not as a KeyError at run time; and a bad value gets
a plain message ("--depth must be 1–4") with exit 2, as argparse's own errors do.
"""

from __future__ import annotations

import argparse
import re
import types
import typing
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta

from enyal_protocol import wire as p

from ..transport import Connection, RpcError
from .base import UsageError

R = TypeVar("R")


# --- reading the protocol's types -------------------------------------------------------


def _parts(tp: Any) -> Iterator[Any]:
    """The types and Metas an annotation is made of, through Annotated, unions and None."""
    origin = typing.get_origin(tp)
    if origin is Annotated:
        base, *extras = typing.get_args(tp)
        yield from extras
        yield from _parts(base)
    elif origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            yield from _parts(arg)
    else:
        yield tp


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(struct: type[Any]) -> dict[str, Any]:
    if struct not in _HINTS:
        _HINTS[struct] = typing.get_type_hints(struct, include_extras=True)
    return _HINTS[struct]


def parts(struct: type[Any], field: str) -> Iterator[Any]:
    """The types and Metas a field's annotation is made of (outermost Meta first)."""
    return _parts(_hints(struct)[field])


def choices(struct: type[Any], field: str) -> tuple[str, ...]:
    """The values a Literal-typed field allows, in the protocol's order."""
    out: list[str] = []
    for part in _parts(_hints(struct)[field]):
        if typing.get_origin(part) is Literal:
            out += typing.get_args(part)
        elif typing.get_origin(part) is list:
            out += choices_of(typing.get_args(part)[0])
    return tuple(out)


def choices_of(tp: Any) -> tuple[str, ...]:
    literals = (part for part in _parts(tp) if typing.get_origin(part) is Literal)
    return tuple(value for lit in literals for value in typing.get_args(lit))


class Bounds(msgspec.Struct, frozen=True):
    ge: float | None = None
    le: float | None = None
    min_length: int | None = None
    max_length: int | None = None


def bounds(struct: type[Any], field: str) -> Bounds:
    """The numeric and length bounds on a field, from its Meta (innermost wins ties)."""
    found: dict[str, Any] = {}
    for part in _parts(_hints(struct)[field]):
        if isinstance(part, Meta):
            for key in ("ge", "le", "min_length", "max_length"):
                value = getattr(part, key)
                if value is not None:
                    found.setdefault(key, value)
    return Bounds(**found)


def _description(struct: type[Any], field: str) -> str:
    """The field's own words (its innermost Meta description says what a value looks like)."""
    found = [m.description for m in _parts(_hints(struct)[field]) if isinstance(m, Meta)]
    return next((d for d in reversed(found) if d), "see --help")


def _span(b: Bounds) -> str:
    def num(x: float) -> str:
        return f"{x:g}"

    if b.ge is not None and b.le is not None:
        return f"{num(b.ge)}–{num(b.le)}"
    if b.ge is not None:
        return f"{num(b.ge)} or more"
    return f"{num(b.le)} or less" if b.le is not None else "a number"


def number(struct: type[Any], field: str, kind: Callable[[str], Any] = int) -> Callable[[str], Any]:
    """An argparse type for a numeric field, checking the protocol's bounds."""
    b = bounds(struct, field)
    word = "whole number" if kind is int else "number"

    def parse(text: str) -> Any:
        try:
            x = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {word}: {text!r}") from None
        if (b.ge is not None and x < b.ge) or (b.le is not None and x > b.le):
            raise argparse.ArgumentTypeError(f"must be {_span(b)}")
        return x

    return parse


# --- checking params before they go out --------------------------------------------------

_AT = re.compile(r" - at `\$\.(?P<path>[^`]*)`$")


def _flag(field: str, flags: dict[str, str]) -> str:
    return flags.get(field, "--" + field.replace("_", "-"))


def plain(struct: type[Any], message: str, flags: dict[str, str]) -> str:
    """msgspec's validation message, as a person would say it."""
    at = _AT.search(message)
    path = at["path"] if at else ""
    bare = _AT.sub("", message)
    field = re.split(r"[.\[]", path, maxsplit=1)[0]
    missing = re.match(r"Object missing required field `(\w+)`", bare)
    if missing:
        return f"{_flag(missing[1], flags)} is required"
    if not field or field not in _hints(struct):
        return bare
    name = _flag(field, flags)
    b = bounds(struct, field)
    if "[" in path:  # an item of a list: its own bounds are on the item type
        name = f"each {name}"
    if "of length >= 1" in bare:
        return f"{name} must not be empty"
    length = re.search(r"of length <= (\d+)", bare)
    if length:
        if "`array`" in bare:
            return f"{name}: at most {length[1]} allowed"
        return f"{name} is too long (at most {length[1]} characters)"
    if re.search(r"`(int|float)` (>=|<=|>|<)", bare):
        return f"{name} must be {_span(b)}"
    if "matching regex" in bare:
        return f"{name} is not in the expected form: {_description(struct, field)}"
    enum = re.match(r"Invalid enum value (.*)", bare)
    if enum:
        return f"{name} must be one of {', '.join(choices(struct, field))} (not {enum[1]})"
    return f"{name}: {bare}"


def check(method: str, params: dict[str, Any], flags: dict[str, str] | None = None) -> None:
    """Raise UsageError, in plain words, if the daemon would refuse these params."""
    struct = p.METHODS[method].params
    try:
        msgspec.convert(params, struct)
    except msgspec.ValidationError as exc:
        raise UsageError(plain(struct, str(exc), flags or {})) from None


def call(
    c: Connection,
    method: str,
    params: dict[str, Any],
    result: type[R],
    flags: dict[str, str] | None = None,
) -> R:
    """Check params, send them, decode the reply into its Struct."""
    check(method, params, flags)
    try:
        reply: R = c.call(method, params, result)
    except RpcError as exc:
        if exc.code != p.INVALID_PARAMS:
            raise
        # A daemon of this release agrees with check(); this is for one that does not.
        bare = exc.message.split(": ", 1)[-1]
        struct = p.METHODS[method].params
        raise RpcError(exc.code, plain(struct, bare, flags or {}), exc.data) from None
    return reply

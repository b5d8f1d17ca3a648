"""Params checked against the protocol's Structs before anything is sent, and the one
call helper every client shares (the CLI's verbs, the hooks, the web view).

A call's params are converted to its method's wire Struct (wire.METHODS) first: params the
daemon would refuse are refused here, with the daemon's own message, before a connection
opens (transport.connect opens at the first request), so a refusal never starts a daemon.
plain() says msgspec's message, ours or the daemon's, as a person would, naming each field
as the client shows it (a CLI flag, a query-string key). Allowed values and bounds are read
from the Structs, never restated (the CLI's choices and argparse types come from here).
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Protocol, TypeVar

import msgspec
from msgspec import Meta

from enyal_protocol import wire as p

from .transport import RpcError

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


def span(b: Bounds) -> str:
    def num(x: float) -> str:
        # A whole bound as written: :g alone turns 2**31 into "2.14748e+09".
        return str(int(x)) if float(x).is_integer() else f"{x:g}"

    if b.ge is not None and b.le is not None:
        return f"{num(b.ge)}–{num(b.le)}"
    if b.ge is not None:
        return f"{num(b.ge)} or more"
    return f"{num(b.le)} or less" if b.le is not None else "a number"


# --- saying a refusal in plain words ------------------------------------------------

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
        return f"{name} must be {span(b)}"
    if "matching regex" in bare:
        return f"{name} is not in the expected form: {_description(struct, field)}"
    enum = re.match(r"Invalid enum value (.*)", bare)
    if enum:
        return f"{name} must be one of {', '.join(choices(struct, field))} (not {enum[1]})"
    return f"{name}: {bare}"


class ParamsRefused(RpcError):
    """Params refused before anything was sent, with the daemon's own code and message.
    `reason`: msgspec's words alone, for plain()."""

    def __init__(self, method: str, reason: str) -> None:
        super().__init__(p.INVALID_PARAMS, f"invalid params for {method}: {reason}")
        self.reason = reason


def checked(method: str, params: Any, strict: bool = True) -> Any:
    """`params` as the method's Struct; ParamsRefused if the daemon would refuse them.
    `strict=False`: text may stand for a number or a boolean (a query string's values)."""
    try:
        return msgspec.convert(params, p.METHODS[method].params, strict=strict)
    except msgspec.ValidationError as exc:
        raise ParamsRefused(method, str(exc)) from None


class Caller(Protocol):
    """What a call goes through: a Connection, or a pool of them."""

    def call_raw(self, method: str, params: Any) -> bytes: ...


def call(
    c: Caller,
    method: str,
    params: dict[str, Any],
    result: type[R],
    names: dict[str, str] | None = None,
) -> R:
    """Check params (before anything is sent), send them, decode the reply into its Struct.
    An INVALID_PARAMS error, ours or the daemon's, is put in plain words (`names`: the
    client's name of a field where it is not `--field-name`)."""
    try:
        checked(method, params)
        return msgspec.json.decode(c.call_raw(method, params), type=result)
    except RpcError as exc:
        if exc.code != p.INVALID_PARAMS:
            raise
        # The daemon's message is "invalid params for METHOD: " and msgspec's own words.
        bare = exc.reason if isinstance(exc, ParamsRefused) else exc.message.split(": ", 1)[-1]
        struct = p.METHODS[method].params
        raise RpcError(exc.code, plain(struct, bare, names or {}), exc.data) from None

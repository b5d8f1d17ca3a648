"""The CLI's side of the typed contract: allowed values and bounds come from the
protocol's Structs (read in enyal_client/params.py, never restated here), params are
checked against them before anything is sent, and replies are decoded into the result
Structs.

A renamed field or a changed bound in `enyal_protocol.wire` therefore shows up in
argparse's choices and in mypy, not as a KeyError at run time; and a bad value gets
a plain message ("--depth must be 1–4") with exit 2, as argparse's own errors do.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

from enyal_protocol import wire as p

from .. import params as pm
from ..params import Bounds as Bounds
from ..params import Caller, ParamsRefused, span
from ..params import bounds as bounds
from ..params import choices as choices
from ..params import choices_of as choices_of
from ..params import parts as parts
from ..params import plain as plain
from .base import UsageError

R = TypeVar("R")


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
            raise argparse.ArgumentTypeError(f"must be {span(b)}")
        return x

    return parse


# --- checking params before they go out --------------------------------------------------


def check(method: str, params: dict[str, Any], flags: dict[str, str] | None = None) -> None:
    """Raise UsageError, in plain words, if the daemon would refuse these params: a
    mistake of the command line, which --json reports with code null."""
    try:
        pm.checked(method, params)
    except ParamsRefused as exc:
        raise UsageError(plain(p.METHODS[method].params, exc.reason, flags or {})) from None


def call(
    c: Caller,
    method: str,
    params: dict[str, Any],
    result: type[R],
    flags: dict[str, str] | None = None,
) -> R:
    """Check params, send them, decode the reply into its Struct (params.call)."""
    check(method, params, flags)
    return pm.call(c, method, params, result, flags)

"""argparse flags derived from a params Struct, and the params read back from them.

A verb that is one daemon call with a flag per param (`remember`, `update`) declares
nothing twice: each field of the Struct becomes `--field-name` (or the name the verb's
FLAGS gives it; a required field is a positional), its kind decides the flag's form
(Literal -> choices, bool -> a switch, int/float -> a number checked against the Meta
bounds, list -> repeatable, dict -> a JSON object) and its Meta description is the help.
A new param is a new flag without touching the CLI.
"""

from __future__ import annotations

import argparse
import typing
from collections.abc import Collection, Mapping
from typing import Any

import msgspec
from msgspec import Meta

from enyal_protocol import wire as p

from . import contract as ct
from .base import json_object


def _field_info(struct: type[Any], field: str) -> msgspec.structs.FieldInfo:
    return next(f for f in msgspec.structs.fields(struct) if f.name == field)


def _help(struct: type[Any], field: str) -> str | None:
    """The field's own description (its outermost Meta's) and its default, if any."""
    metas = [m for m in ct.parts(struct, field) if isinstance(m, Meta) and m.description]
    text = metas[0].description if metas else None
    default = _field_info(struct, field).default
    if default not in (None, False, msgspec.NODEFAULT) and not isinstance(default, list | dict):
        text = f"{text or ''} (default: {default})".strip()
    # argparse formats help with %: a literal one must be doubled.
    return text.replace("%", "%%") if text else None


def _spec(struct: type[Any], field: str) -> dict[str, Any]:
    kinds = [t for t in ct.parts(struct, field) if not isinstance(t, Meta) and t is not type(None)]
    spec: dict[str, Any] = {"help": _help(struct, field)}
    lists = [t for t in kinds if typing.get_origin(t) is list]
    if lists:
        item = typing.get_args(lists[0])[0]
        spec.update(action="append", metavar="ID" if item == p.EntryId else None)
        spec["help"] = f"{spec['help'] or ''} (repeatable)".strip()
        if ct.choices(struct, field):
            spec["choices"] = ct.choices(struct, field)
    elif bool in kinds:
        spec["action"] = "store_true"
    elif ct.choices(struct, field):
        spec["choices"] = ct.choices(struct, field)
    elif int in kinds or float in kinds:
        spec["type"] = ct.number(struct, field, int if int in kinds else float)
    elif dict in kinds or any(typing.get_origin(t) is dict for t in kinds):
        spec["type"] = json_object
    if spec.get("metavar") is None:
        spec.pop("metavar", None)
    return spec


def add_flags(
    parser: argparse.ArgumentParser,
    struct: type[Any],
    flags: Mapping[str, str],
    skip: Collection[str] = (),
) -> None:
    """A positional for each required field, an option for each other one (but `skip`)."""
    for field in struct.__struct_fields__:
        if field in skip:
            continue
        spec = _spec(struct, field)
        if _field_info(struct, field).required:
            parser.add_argument(field, **spec)
            continue
        name = flags.get(field, "")
        if not name.startswith("-"):
            name = "--" + field.replace("_", "-")
        takes_value = spec.get("action") != "store_true" and "choices" not in spec
        if takes_value and "metavar" not in spec:
            # As argparse would name it from the flag (TAG, THRESHOLD), not from the field.
            spec["metavar"] = name[2:].replace("-", "_").upper()
        parser.add_argument(name, dest=field, **spec)


def params_of(
    args: argparse.Namespace, struct: type[Any], skip: Collection[str] = ()
) -> dict[str, Any]:
    """The params the flags given make: a flag left out (None) or a switch left off
    (False) is not sent, so the daemon's default applies."""
    out: dict[str, Any] = {}
    for field in struct.__struct_fields__:
        if field in skip:
            continue
        value = getattr(args, field)
        if value is not None and value is not False:
            out[field] = value
    return out

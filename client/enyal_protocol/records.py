"""typing.NamedTuple's class syntax without importing typing, which costs 17 M instructions,
an eighth of a command hook's start (docs/ARCHITECTURE.md, "Client start-up"). paths.py
and config.py, which every client process loads, declare their records with it: mypy
reads them as typing.NamedTuple (their TYPE_CHECKING import), and at run time this makes
the collections.namedtuple that typing.NamedTuple makes, the class body's methods and
properties set on it. Annotations are not evaluated (typing's compiles each one given
as a string, as `from __future__ import annotations` gives them all)."""

from __future__ import annotations

import collections

TYPE_CHECKING = False  # typing's own constant would import typing
if TYPE_CHECKING:
    from typing import Any

# What the class body holds that is not for the record's class (typing leaves the same out).
_NOT_COPIED = ("__module__", "__qualname__", "__annotations__")


class _RecordType(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        fields = list(ns.get("__annotations__", {}))
        defaults = [ns[field] for field in fields if field in ns]
        record = collections.namedtuple(name, fields, defaults=defaults, module=ns["__module__"])  # type: ignore[misc]
        for key, value in ns.items():
            if key not in fields and key not in _NOT_COPIED:
                setattr(record, key, value)
        record.__qualname__ = ns["__qualname__"]
        return record


_Record = type.__new__(_RecordType, "NamedTuple", (), {})


def NamedTuple(*args: Any, **kwargs: Any) -> Any:
    """Only `class X(NamedTuple): ...`, the one form paths.py and config.py use."""
    raise TypeError("enyal_protocol.records.NamedTuple takes the class syntax only")


# What makes `class X(NamedTuple)` a class of _RecordType, as typing does for its own.
setattr(NamedTuple, "__mro_entries__", lambda bases: (_Record,))  # noqa: B010

"""typing.NamedTuple's class syntax without importing typing, which costs 17 M instructions,
an eighth of a command hook's start (docs/ARCHITECTURE.md, "Client start-up"). paths.py
and config.py, which every client process loads, declare their records with it: mypy
reads them as typing.NamedTuple (their TYPE_CHECKING import), and at run time this makes
the tuple subclass that typing.NamedTuple makes, the class body's methods and
properties set on it. Annotations are not evaluated (typing's compiles each one given
as a string, as `from __future__ import annotations` gives them all).

The record is built here, not by collections.namedtuple: importing collections (with
operator, reprlib and keyword) and namedtuple's exec of each record's __new__ cost a
command hook ~3-6 ms of CPU for its eight records (docs/ARCHITECTURE.md). It is the same
tuple subclass: fields read by _collections' _tuplegetter (namedtuple's own), and the
parts of namedtuple's API Enyal uses (_fields, _field_defaults, _replace, _asdict,
__repr__, pickling); tests/test_records.py holds it to typing.NamedTuple's behaviour."""

from __future__ import annotations

try:  # namedtuple's own field reader; CPython's C module has no stubs
    from _collections import _tuplegetter  # type: ignore[import-not-found]
except ImportError:  # another interpreter: the property namedtuple falls back to
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> Any:
        return property(itemgetter(index), doc=doc)


TYPE_CHECKING = False  # typing's own constant would import typing
if TYPE_CHECKING:
    from typing import Any

# What the class body holds that is not for the record's class (typing leaves the same out).
_NOT_COPIED = ("__module__", "__qualname__", "__annotations__")


def _record(name: str, fields: tuple[str, ...], defaults: dict[str, Any], module: str) -> Any:
    """The tuple subclass collections.namedtuple(name, fields, defaults=...) makes."""
    count = len(fields)

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if len(args) > count:
            raise TypeError(f"{name}() takes {count} arguments but {len(args)} were given")
        values = list(args)
        for field in fields[len(args) :]:
            if field in kwargs:
                values.append(kwargs.pop(field))
            elif field in defaults:
                values.append(defaults[field])
            else:
                raise TypeError(f"{name}() missing required argument: {field!r}")
        if kwargs:
            raise TypeError(f"{name}() got unexpected or repeated arguments: {sorted(kwargs)}")
        return tuple.__new__(cls, values)

    def _replace(self: tuple[Any, ...], **changes: Any) -> Any:
        unknown = set(changes) - set(fields)
        if unknown:
            raise ValueError(f"Got unexpected field names: {sorted(unknown)!r}")
        return type(self)(*(changes.get(f, v) for f, v in zip(fields, self, strict=True)))

    def _asdict(self: tuple[Any, ...]) -> dict[str, Any]:
        return dict(zip(fields, self, strict=True))

    def __repr__(self: tuple[Any, ...]) -> str:
        shown = ", ".join(f"{f}={v!r}" for f, v in zip(fields, self, strict=True))
        return f"{type(self).__name__}({shown})"

    def __getnewargs__(self: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(self)

    ns: dict[str, Any] = {
        "__slots__": (),
        "__module__": module,
        "__new__": __new__,
        "_replace": _replace,
        "_asdict": _asdict,
        "__repr__": __repr__,
        "__getnewargs__": __getnewargs__,
        "_fields": fields,
        "_field_defaults": defaults,
        "__match_args__": fields,
    }
    for index, field in enumerate(fields):
        ns[field] = _tuplegetter(index, f"Alias for field number {index}")
    return type(name, (tuple,), ns)


class _RecordType(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        fields = tuple(ns.get("__annotations__", {}))
        defaults = {field: ns[field] for field in fields if field in ns}
        if fields[len(fields) - len(defaults) :] != tuple(defaults):  # as typing refuses it
            raise TypeError(f"{name}: a field without a default follows one with a default")
        record = _record(name, fields, defaults, ns["__module__"])
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

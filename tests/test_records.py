"""enyal_protocol.records: typing.NamedTuple's class syntax at a client's start-up cost.

Every client process (a command hook before every prompt) declares paths.py's and
config.py's records with it, so it must behave as typing.NamedTuple's records do for what
Enyal uses (fields, defaults, _replace, _asdict, equality, repr, pickling) and must not
import what a hook does not otherwise need (docs/ARCHITECTURE.md, "Client start-up")."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import enyal_protocol
from enyal_protocol.records import NamedTuple


class Point(NamedTuple):  # type: ignore[misc]
    x: int
    y: int = 2
    label: str = "p"

    def total(self) -> int:
        return self.x + self.y


class TypedPoint(typing.NamedTuple):
    x: int
    y: int = 2
    label: str = "p"


def test_a_record_behaves_as_typing_namedtuple_does() -> None:
    for cls in (Point, TypedPoint):
        p = cls(1)
        assert tuple(p) == (1, 2, "p") and p.x == 1 and p.y == 2 and p[2] == "p"
        assert cls(1, 3, "q") == cls(x=1, label="q", y=3) == (1, 3, "q")
        assert p._replace(y=5) == cls(1, 5, "p") and p._asdict() == {"x": 1, "y": 2, "label": "p"}
        assert cls._fields == ("x", "y", "label")
        assert cls._field_defaults == {"y": 2, "label": "p"}
        assert pickle.loads(pickle.dumps(p)) == p
        x, y, label = p
        assert (x, y, label) == (1, 2, "p")
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls(1, 2, "p", 4)
        with pytest.raises(TypeError):
            cls(1, z=3)
        with pytest.raises(TypeError):
            cls(1, x=1)
        with pytest.raises(ValueError):
            p._replace(z=1)
        with pytest.raises(AttributeError):
            p.x = 3  # type: ignore[misc]
    with pytest.raises(TypeError):

        class Bad(NamedTuple):  # type: ignore[misc]
            x: int = 1
            y: int

    assert repr(Point(1)) == "Point(x=1, y=2, label='p')"
    assert Point(1).total() == 3 and Point.__qualname__ == "Point"
    assert Point.__module__ == __name__ and isinstance(Point(1), tuple)


def test_a_hook_start_imports_no_collections() -> None:
    """collections (with operator, reprlib, keyword) and namedtuple's exec of each record's
    __new__ were ~3-6 ms of a command hook's ~12 ms over `python -c pass` (farm-bench)."""
    code = (
        "import sys; import enyal_protocol.config, enyal_protocol.paths; "
        "print(sorted({'collections', 'operator', 'reprlib', 'typing'} & set(sys.modules)))"
    )
    # This interpreter's path, less what only site's hooks read (an editable install's
    # finder entry, which -S leaves unhooked), and the client's folder put first.
    client = str(Path(enyal_protocol.__file__).resolve().parent.parent)
    path = [client, *(d for d in sys.path if d and os.path.exists(d))]
    out = subprocess.run(
        [sys.executable, "-S", "-c", f"import sys; sys.path[:0] = {path!r}; {code}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "[]"

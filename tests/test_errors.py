"""The error tree is drawn once and mapped once: every EnyalError subclass the daemon
defines lives in errors.py with a code of its own, and only a bug maps to -32603.
Every daemon module is imported first, so a subclass defined anywhere is found."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import enyal_daemon
from enyal_daemon import errors
from enyal_protocol import wire as p

DAEMON = Path(enyal_daemon.__file__).parent
# Raised only for a programming error (a handler table out of step with the protocol,
# an unknown column name): those are bugs, and -32603 is what a bug should report.
BUG_CLASSES = {"RuntimeError", "ValueError", "AssertionError"}


def _all_subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    for sub in cls.__subclasses__():
        out |= {sub, *_all_subclasses(sub)}
    return out


def test_every_error_class_is_in_errors_py_with_its_own_code() -> None:
    for info in pkgutil.walk_packages([str(DAEMON)], "enyal_daemon."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    subclasses = _all_subclasses(errors.EnyalError)
    assert {c.__module__ for c in subclasses} == {"enyal_daemon.errors"}
    for cls in subclasses:
        assert cls.code != p.INTERNAL_ERROR, cls
        assert cls.code in p.ERROR_NAMES, cls
        assert "code" in vars(cls), f"{cls.__name__} inherits its code instead of naming it"
        assert cls.__name__ in (errors.__doc__ or ""), f"{cls.__name__} missing from the tree"


def test_every_raise_in_the_daemon_is_an_enyal_error_or_a_bug() -> None:
    known = {c.__name__ for c in _all_subclasses(errors.EnyalError)} | {"EnyalError"}
    raised: dict[str, set[str]] = {}
    for path in DAEMON.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                name = target.attr if isinstance(target, ast.Attribute) else None
                name = target.id if isinstance(target, ast.Name) else name
                if name is not None and name[0].isupper():
                    raised.setdefault(name, set()).add(path.name)
    # argparse's own error type stays inside the command line's argument parsing.
    unknown = set(raised) - known - BUG_CLASSES - {"ArgumentTypeError"}
    assert unknown == set(), {n: raised[n] for n in unknown}
    assert "EnyalError" not in raised, f"the base is raised in {raised.get('EnyalError')}"

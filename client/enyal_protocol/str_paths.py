"""pathlib's answers as strings, for the command hook's path: importing pathlib costs a
hook process 17.7 M instructions, 11 M of it urllib.parse, which pathlib imports for
`as_uri` (docs/ARCHITECTURE.md, "Client start-up"). Each function gives exactly the
string its pathlib counterpart's str() gives on POSIX (tests/test_str_paths.py), so a
path the hook sends or compares is the one every other client makes with Path."""

from __future__ import annotations

import os


def pure(path: str) -> str:
    """str(PurePosixPath(path)): empty and `.` parts dropped, `..` kept (pathlib never
    resolves it), and a leading `//` kept as POSIX allows, `///` or more read as `/`."""
    if path.startswith("//") and not path.startswith("///"):
        lead = "//"
    else:
        lead = "/" if path.startswith("/") else ""
    return lead + "/".join(p for p in path.split("/") if p not in ("", ".")) or "."


def join(*parts: str) -> str:
    """str(Path(*parts)): an absolute part starts the path again, as in os.path.join."""
    return pure(os.path.join(*parts))


def absolute(path: str) -> str:
    """str(Path(path).expanduser().absolute())."""
    path = os.path.expanduser(path)
    return pure(path if path.startswith("/") else os.path.join(os.getcwd(), path))


def relative_to(path: str, start: str) -> str:
    """str(Path(path).relative_to(start)); ValueError when `path` is not under `start`."""
    path, start = pure(path), pure(start)
    if _root(path) != _root(start):
        raise ValueError(f"{path!r} is not in the subpath of {start!r}")
    if path == start:
        return "."
    if start == ".":
        if not path.startswith("/"):
            return path
    else:
        prefix = start if start.endswith("/") else start + "/"
        if path.startswith(prefix):
            return path[len(prefix) :]
    raise ValueError(f"{path!r} is not in the subpath of {start!r}")


def _root(path: str) -> str:
    return path[:2] if path.startswith("//") else path[:1] if path.startswith("/") else ""


def name(path: str) -> str:
    """Path(path).name."""
    tail = pure(path).rpartition("/")[2]
    return "" if tail in (".", "") else tail


def parent(path: str) -> str:
    """str(Path(path).parent)."""
    path = pure(path)
    head, sep, tail = path.rpartition("/")
    if not sep:
        return "."
    if not tail:  # the root itself ("/" or "//")
        return path
    return head if head not in ("", "/") else path[: len(path) - len(tail)]

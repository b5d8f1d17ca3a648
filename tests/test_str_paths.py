"""enyal_protocol/str_paths.py and paths.places(): the command hook resolves its places
without pathlib (17.7 M instructions of its start), and must find the very strings every
other client and the daemon make with Path: the socket it connects to, the database it
names in enyal_expect, the config file the cache is keyed by."""

from __future__ import annotations

import itertools
from pathlib import Path, PurePosixPath

import pytest

from enyal_protocol import str_paths
from enyal_protocol.paths import Paths, Places, places, resolve

# Odd spellings included: empty and `.` parts, `..` (pathlib keeps it), a trailing
# slash, `//` (POSIX keeps exactly two), `///`, `~`.
CASES = ["", ".", "..", "/", "//", "///", "a", "a/", "./a", "a/./b//c/../d/", "/a/b", "/a"]
CASES += ["/a/b/", "//srv/x", "///x/y", "/a/..", "a/..", "~", "~/x", "/p/.claude/rules/r.md"]


@pytest.mark.parametrize("path", CASES)
def test_each_answer_is_pathlibs(path: str) -> None:
    assert str_paths.pure(path) == str(PurePosixPath(path))
    assert str_paths.absolute(path) == str(Path(path).expanduser().absolute())
    assert str_paths.name(path) == PurePosixPath(path).name
    assert str_paths.parent(path) == str(PurePosixPath(path).parent)


def test_join_and_relative_to_answer_as_pathlib() -> None:
    for a, b in itertools.product(CASES, repeat=2):
        assert str_paths.join(a, b) == str(PurePosixPath(a, b)), (a, b)
        try:
            expected: str | None = str(PurePosixPath(a).relative_to(b))
        except ValueError:
            expected = None
        try:
            mine: str | None = str_paths.relative_to(a, b)
        except ValueError:
            mine = None
        assert mine == expected, (a, b)


ENVS = [
    {"ENYAL_HOME": "rel/./home//x/../y/"},
    {"ENYAL_HOME": "~/e", "ENYAL_SOCKET": "s.sock", "ENYAL_CACHE_DIR": "~/c/"},
    {"XDG_DATA_HOME": "/d/", "XDG_CONFIG_HOME": "//c", "XDG_RUNTIME_DIR": "/r//"},
    {"XDG_CACHE_HOME": " ", "XDG_STATE_HOME": "/s/./t"},
    {"XDG_RUNTIME_DIR": "/" + "deep/" * 30},  # the socket's short fallback
    {},  # no XDG_RUNTIME_DIR: the private temp folder
]


@pytest.mark.parametrize("extra", ENVS)
def test_places_are_the_strings_of_paths(extra: dict[str, str], tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "TMPDIR": str(tmp_path)} | extra
    mine, theirs = places(env), resolve(env)
    assert Places._fields == Paths._fields
    assert tuple(mine) == tuple(None if p is None else str(p) for p in theirs)
    assert (mine.db, mine.config_file) == (str(theirs.db), str(theirs.config_file))

"""`enyal remember` and `enyal update` take their flags from RememberParams and
UpdateParams (commands/struct_flags.py): every param is a flag (but the few remember
fills in itself), with the Struct's choices and bounds, and every flag name these verbs
had before still parses to the same params."""

from __future__ import annotations

import argparse

import pytest

from enyal_client import cli
from enyal_client.commands import contract as ct
from enyal_client.commands import struct_flags as sf
from enyal_client.commands.memory import REMEMBER_UNOFFERED, UPDATE_UNOFFERED
from enyal_protocol import wire as p

VERBS = [
    ("remember", p.RememberParams, REMEMBER_UNOFFERED),
    ("update", p.UpdateParams, UPDATE_UNOFFERED),
]


def parse(*argv: str) -> argparse.Namespace:
    parser, _ = cli.build_parser(argv[0])
    return parser.parse_args(list(argv))


def actions(verb: str) -> dict[str, argparse.Action]:
    parser, _ = cli.build_parser(verb)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a for a in sub.choices[verb]._actions}


@pytest.mark.parametrize(("verb", "struct", "skip"), VERBS)
def test_every_param_is_a_flag_with_the_structs_choices(
    verb: str, struct: type, skip: tuple[str, ...]
) -> None:
    found = actions(verb)
    for field in struct.__struct_fields__:
        if field in skip:
            assert field not in found, f"{verb}: {field} is offered but listed as not"
            continue
        assert field in found, f"{verb}: param {field} has no flag"
        allowed = ct.choices(struct, field)
        if allowed:
            assert tuple(found[field].choices or ()) == allowed, f"{verb} {field}"


def test_the_flags_remember_and_update_always_had_make_the_same_params() -> None:
    # Every flag name of both verbs before they were derived (commands/memory.py as it
    # was), each given, and the params the old code built from them.
    a = parse(
        "remember", "the build uses ninja", "--type", "decision", "--scope", "file",
        "--scope-path", "a.py", "--tag", "b", "--tag", "c", "--source-type", "file",
        "--source-ref", "a.py", "--metadata", '{"k": 1}', "--confidence", "0.5",
        "--importance", "4", "--ttl", "7d", "--dedup", "merge", "--threshold", "0.9",
        "--relates-to", "abcd", "--supersedes", "bcde", "--depends-on", "cdef",
        "--auto-link", "--detect-conflicts", "--suggest-supersedes",
    )  # fmt: skip
    assert sf.params_of(a, p.RememberParams, REMEMBER_UNOFFERED) == {
        "content": "the build uses ninja",
        "content_type": "decision",
        "scope": "file",
        "scope_path": "a.py",
        "tags": ["b", "c"],
        "source_type": "file",
        "source_ref": "a.py",
        "metadata": {"k": 1},
        "confidence": 0.5,
        "importance": 4,
        "ttl": "7d",
        "dedup": "merge",
        "dedup_threshold": 0.9,
        "relates_to": ["abcd"],
        "supersedes": ["bcde"],
        "depends_on": ["cdef"],
        "auto_link": True,
        "detect_conflicts": True,
        "suggest_supersedes": True,
    }
    assert sf.params_of(parse("remember", "x"), p.RememberParams, REMEMBER_UNOFFERED) == {
        "content": "x"
    }
    u = parse(
        "update", "abcd", "--content", "y", "--type", "fact", "--confidence", "0.2",
        "--tag", "t", "--metadata", "{}", "--importance", "1", "--ttl", "never",
    )  # fmt: skip
    assert sf.params_of(u, p.UpdateParams, UPDATE_UNOFFERED) == {
        "id": "abcd",
        "content": "y",
        "content_type": "fact",
        "confidence": 0.2,
        "tags": ["t"],
        "metadata": {},
        "importance": 1,
        "ttl": "never",
    }


@pytest.mark.parametrize(
    "argv",
    [
        ("remember", "x", "--importance", "6"),
        ("remember", "x", "--threshold", "1.5"),
        ("remember", "x", "--type", "task"),
        ("remember", "x", "--metadata", "[1]"),
        ("update", "abcd", "--confidence", "-1"),
    ],
)
def test_values_outside_the_structs_bounds_are_usage_errors(argv: tuple[str, ...]) -> None:
    # The CLI's parser raises ArgsError where argparse would exit 2 (cli.main maps it).
    with pytest.raises(cli.ArgsError, match=f"argument {argv[2]}"):
        parse(*argv)

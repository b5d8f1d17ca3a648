"""enyal_protocol/lean_json.py, the command hook's JSON without the json package, gives
what json.loads and json.dumps give, errors included (a ValueError, as JSONDecodeError
is), for the values a hook reads and writes: the oracle is the standard library."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from enyal_protocol import lean_json

CLIENT = Path(__file__).resolve().parent.parent / "client"

VALUES: list[Any] = [
    {},
    [],
    "",
    0,
    -1.5,
    1e-05,
    1e16,
    -0.0,
    True,
    None,
    'quote " backslash \\ tab \t newline \n',
    "é 中文 \u2028 \U0001f600 \x7f \x00",
    "lone \ud800 surrogate",
    {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "## Enyal"}},
    {"a": [1, 2.5, None, {"b": [True, False, "x"]}], "n": 12345678901234567890},
    {1: "int key", 2.5: "float key", False: "bool key", None: "null key"},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
@pytest.mark.parametrize("ascii_only", [True, False])
def test_the_same_text_as_json_dumps(value: Any, ascii_only: bool) -> None:
    assert lean_json.dumps(value, ensure_ascii=ascii_only) == json.dumps(
        value, ensure_ascii=ascii_only
    )


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_same_value_as_json_loads(value: Any) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent=2)):
        assert repr(lean_json.loads(text)) == repr(json.loads(text))
    line = json.dumps(value).encode()  # as a daemon's line comes: bytes
    assert repr(lean_json.loads(line)) == repr(json.loads(line))


def test_constants_and_whitespace_as_json_reads_them() -> None:
    got = lean_json.loads(' \n\t{"a": NaN, "b": Infinity, "c": -Infinity} \r\n')
    assert math.isnan(got["a"]) and got["b"] == math.inf and got["c"] == -math.inf
    assert lean_json.dumps(got) == json.dumps(got)
    text = '  {"result": {"x": 1}, "id": 2}'
    assert lean_json.raw_decode(text, 2) == json.JSONDecoder().raw_decode(text, 2)


@pytest.mark.parametrize(
    "bad", ["", " ", "nope", '{"a": 1} x', "[1,", '{"a" 1}', '"\x01"', "{'a': 1}", b"\xff"]
)
def test_what_json_refuses_is_a_value_error(bad: str | bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(bad)
    with pytest.raises(ValueError):
        lean_json.loads(bad)


BAD = ['{"jsonrpc": "2.0", "m', '"abc', '{"a" 1}', "[1 2]", '{"a": 1,}', '"\\q"', '"\\u12"']
BAD += ['"\x01"', "{'a': 1}", "[1,", "nope", ""]


def test_what_json_refuses_is_a_value_error_where_json_was_never_imported() -> None:
    """The command hook's process and the MCP shim's first messages never import json:
    there the accelerator's errors (all but "Expecting value") came out as a SystemError
    (a truncated frame killed enyal-mcp under scripts/torture)."""
    code = (
        "import sys\n"
        "from enyal_protocol import lean_json\n"
        "assert 'json.decoder' not in sys.modules\n"
        f"for bad in {BAD!r}:\n"
        "    try:\n"
        "        lean_json.loads(bad)\n"
        "    except ValueError:\n"
        "        continue\n"
        "    raise SystemExit(f'no ValueError for {bad!r}')\n"
        "assert 'json.decoder' not in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": str(CLIENT)}
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_what_json_cannot_write_fails_as_in_json() -> None:
    circular: list[Any] = []
    circular.append(circular)
    for value, error in (({"a": object()}, TypeError), (circular, ValueError)):
        with pytest.raises(error):
            json.dumps(value)
        with pytest.raises(error):
            lean_json.dumps(value)

"""Malformed frames, and what each must be answered with.

Two generators: one for the daemon's socket (its methods and params), one for
enyal-mcp's stdin (MCP methods; tool arguments checked against the same Params
Structs). Each frame says what must happen: an error object carrying one of the
allowed codes (and the request's id, or null where none could be read), silence
(a notification: JSON-RPC never answers one), or, for a line over the frame
limit, -32003 (the daemon then closes the connection; the shim reads on).

No frame is a valid write: whatever the daemon or the shim does with them, the
store must come out unchanged.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from enyal_client.mcp import tools as mcp_tools
from enyal_protocol import wire as p

PE, IR, MNF, IP = p.PARSE_ERROR, p.INVALID_REQUEST, p.METHOD_NOT_FOUND, p.INVALID_PARAMS
NF, IV, TL, VM = p.NOT_FOUND, p.INVALID_VALUE, p.TOO_LARGE, p.VERSION_MISMATCH
DEEP = 5000  # levels of nesting in the "deep" frames
OVERSIZE = int(1.1 * p.MAX_FRAME_BYTES)
NOPE = "zzzz-no-such-entry"  # not hex: no prefix of a real id
ANY = object()  # a Frame.rid: the answer may carry any id (a huge number read or not)


@dataclass(frozen=True)
class Frame:
    kind: str
    data: bytes  # without the newline
    # "error"; "errors" (a batch: an array of `items` errors of `codes`); "tool-error"
    # (enyal-mcp: an isError result, SEP-1303, or an error of `codes` where the frame may
    # fail before its arguments are read); "drop" (no answer); "oversize"
    expect: str
    codes: frozenset[int] = frozenset()
    rid: Any = None  # the id the error must carry (or null); None: null only
    items: int = 0  # "errors" (a batch): how many answers its array holds, each an error

    def __post_init__(self) -> None:
        object.__setattr__(self, "codes", frozenset(self.codes))


def enc(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


OMIT = object()  # req(): no params member at all (None sends "params": null)


def req(method: Any, params: Any = OMIT, rid: Any = None, *, notify: bool = False) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not OMIT:
        msg["params"] = params
    if not notify:
        msg["id"] = rid
    return enc(msg)


def with_number(template: bytes, number: bytes) -> bytes:
    """Put a number literal Python's json would not write (1e999, 5,000 digits) in place."""
    return template.replace(b'"__NUM__"', number)


class Ids:
    """Request ids of every legal shape, each one unique in the run."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = 0

    def __call__(self) -> int | str:
        self.n += 1
        n, r = self.n, self.rng.random()
        if r < 0.35:
            return n
        if r < 0.45:
            return -n
        if r < 0.55:
            return n + 2**62
        if r < 0.6:
            return n + 10**30  # past 64 bits: still a JSON number, echoed as sent
        if r < 0.8:
            return f"req-{n}"
        if r < 0.9:
            return f"ид-{n}-✓"
        return f'q"\\{n}\t'


# --- the daemon --------------------------------------------------------------------------

SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("remember", {"content": "Deploys go out on Tuesdays", "scope": "global", "tags": ["ops"]}),
    ("recall", {"query": "how do we deploy?", "limit": 5}),
    ("update", {"id": NOPE, "content": "Deploys go out on Thursdays"}),
    ("link", {"source_id": "zzzz-a", "target_id": "zzzz-b", "edge_type": "relates_to"}),
    ("import", {"lines": ['{"content": "imported by a truncated frame"}']}),
    ("forget", {"id": NOPE, "hard": True}),
    ("stats", {}),
]

G = {"content": "x", "scope": "global"}
# method, valid-looking params, the field given a wrong type, the wrong values
WRONG_TYPES: list[tuple[str, dict[str, Any], str, list[Any]]] = [
    ("remember", G, "content", [5, ["a"], {"a": 1}, None, True, 1.5]),
    ("remember", G, "tags", ["a", [1], {"x": 1}, [None], [["a"]], None]),
    ("remember", G, "confidence", ["high", [], {}, True, None]),
    ("remember", G, "metadata", [[], "x", 5, None]),
    ("remember", G, "content_type", [5, None, ["fact"]]),
    ("remember", G, "scope", [1, None, {}]),
    ("remember", G, "dedup", [True, None, 0]),
    ("remember", G, "relates_to", ["abcd", [5], None]),
    ("remember", G, "auto_link", ["yes", 1, None]),
    ("recall", {"query": "x"}, "query", [5, [], None, {}]),
    ("recall", {"query": "x"}, "limit", ["10", 10.5, True, None, []]),
    ("recall", {"query": "x"}, "include_deprecated", [1, "yes", None]),
    ("recall", {"query": "x"}, "tags", ["a", [1]]),
    ("recall", {"query": "x"}, "min_confidence", ["0.5", None, True]),
    ("recall", {"query": "x"}, "as_of", [5, []]),
    ("get", {}, "id", [5, [], {}, None, True]),
    ("forget", {"id": NOPE}, "hard", ["yes", 1, None]),
    ("update", {"id": NOPE}, "confidence", ["x", True]),
    ("update", {"id": NOPE}, "tags", ["a", [5]]),
    ("update", {"id": NOPE}, "metadata", ["x", 5]),
    ("update", {"id": NOPE}, "content", [5, []]),
    (
        "link",
        {"source_id": "zzzz-a", "target_id": "zzzz-b", "edge_type": "relates_to"},
        "edge_type",
        [5, None, "parent_of", "RELATES_TO"],
    ),
    (
        "link",
        {"source_id": "zzzz-a", "target_id": "zzzz-b", "edge_type": "relates_to"},
        "confidence",
        ["1", None],
    ),
    ("import", {}, "lines", ["{}", 5, [1, 2], {}, None, [None]]),
    ("export", {}, "limit", ["1", 1.5]),
    ("export", {}, "kind", ["vectors", 5]),
    ("export", {}, "versions", ["yes", None]),
    ("traverse", {"id": NOPE}, "depth", ["2", 2.5, None]),
    ("traverse", {"id": NOPE}, "direction", ["up", 5]),
    ("traverse", {"id": NOPE}, "edge_types", ["relates_to", ["is_a"]]),
    ("history", {"id": NOPE}, "limit", ["5", 0.5]),
    ("analytics", {}, "event_type", ["click", 5]),
    ("health", {}, "stale_days", ["x", 1.5, None]),
]

NOT_AN_OBJECT = [[], "x", 5, True, None, 1.5]

# method, params, the codes allowed
BAD_PARAMS: list[tuple[str, dict[str, Any], frozenset[int]]] = [
    (m, prm, frozenset({IP}))
    for m, prm in [
        # a required field missing
        ("remember", {}),
        ("recall", {}),
        ("get", {}),
        ("update", {}),
        ("forget", {}),
        ("restore", {}),
        ("link", {"source_id": "zzzz-a"}),
        ("unlink", {}),
        ("import", {}),
        ("edges", {}),
        ("history", {}),
        ("impact", {}),
        ("recall_by_scope", {"query": "x"}),
        ("backup", {}),
        # unknown fields are an error, not ignored (shutdown's too: it must not stop)
        ("recall", {"query": "x", "sort": "asc"}),
        ("stats", {"verbose": True}),
        ("status", {"x": 1}),
        ("shutdown", {"now": True}),
        ("get", {"id": NOPE, "hard": True}),
        ("remember", {**G, "colour": "red"}),
        # bounds
        ("recall", {"query": "x", "limit": 0}),
        ("recall", {"query": "x", "limit": 101}),
        ("recall", {"query": "x", "min_confidence": 1.5}),
        ("recall", {"query": ""}),
        ("recall", {"query": "q" * 4097}),
        ("remember", {**G, "confidence": -0.1}),
        ("remember", {**G, "tags": [f"t{i}" for i in range(33)]}),
        ("remember", {**G, "tags": [""]}),
        ("remember", {**G, "tags": ["t" * 65]}),
        ("remember", {**G, "dedup_threshold": 2}),
        ("remember", {**G, "source_ref": "r" * 1025}),
        ("remember", {**G, "relates_to": ["zzzz"] * 65}),
        ("remember", {"content": "", "scope": "global"}),
        ("traverse", {"id": NOPE, "depth": 5}),
        ("history", {"id": NOPE, "limit": 0}),
        ("export", {"limit": 1001}),
        ("export", {"after": -1}),
        ("import", {"lines": ["{}"] * 1001}),
        ("import", {"lines": [], "first_line": 0}),
        ("restore", {"id": NOPE, "version": 0}),
        ("health", {"stale_days": 0}),
        ("review", {"limit": 101}),
        # enums
        ("remember", {**G, "content_type": "opinion"}),
        ("remember", {"content": "x", "scope": "universe"}),
        ("recall", {"query": "x", "content_type": "Fact"}),
        ("remember", {**G, "dedup": "maybe"}),
        ("link", {"source_id": "zzzz-a", "target_id": "zzzz-b", "edge_type": "is_a"}),
        ("edges", {"id": NOPE, "direction": "sideways"}),
        ("review", {"kind": "fresh"}),
        ("analytics", {"event_type": "click"}),
        ("remember", {**G, "source_type": "dream"}),
    ]
] + [
    # well-formed, refused by the verb before anything is written
    ("remember", {"content": " \n\t ", "scope": "global"}, frozenset({IV})),
    ("remember", {"content": "a\u0000b", "scope": "global"}, frozenset({IV})),
    ("remember", {"content": "x" * (64 * 1024 + 1), "scope": "global"}, frozenset({TL})),
    ("remember", {"content": "é" * 32769, "scope": "global"}, frozenset({TL})),
    ("remember", {**G, "metadata": {"k": "v" * (64 * 1024)}}, frozenset({TL})),
    ("remember", {"content": "x", "scope": "file"}, frozenset({IV})),
    ("remember", {**G, "scope_path": "/x"}, frozenset({IV})),
    ("remember", {**G, "relates_to": [NOPE]}, frozenset({NF})),
    ("remember", {**G, "supersedes": [NOPE]}, frozenset({NF})),
    ("remember", {**G, "depends_on": [NOPE]}, frozenset({NF})),
    ("update", {"id": NOPE}, frozenset({IV, NF})),
    ("update", {"id": NOPE, "content": "   "}, frozenset({IV, NF})),
    ("update", {"id": NOPE, "content": "x" * (64 * 1024 + 1)}, frozenset({TL, NF})),
    ("update", {"id": NOPE, "content": "a\u0000b"}, frozenset({IV, NF})),
    (
        "link",
        {"source_id": "zzzz", "target_id": "zzzz", "edge_type": "relates_to"},
        frozenset({IV, NF}),
    ),
    ("traverse", {"id": NOPE, "query": "x"}, frozenset({IV})),
    ("traverse", {}, frozenset({IV})),
    ("recall", {"query": "x", "as_of": "yesterday"}, frozenset({IV})),
    ("recall", {"query": "x", "as_of": "2026-13-45"}, frozenset({IV})),
    ("recall_by_scope", {"query": "x", "file_path": "rel/a.py"}, frozenset({IV})),
    ("get", {"id": NOPE}, frozenset({NF})),
    ("get", {"id": "zzz"}, frozenset({NF, IV})),
    ("forget", {"id": NOPE}, frozenset({NF})),
    ("forget", {"id": NOPE, "hard": True}, frozenset({NF})),
    ("restore", {"id": NOPE}, frozenset({NF})),
    ("restore", {"id": NOPE, "version": 3}, frozenset({NF})),
    ("history", {"id": NOPE}, frozenset({NF})),
    ("edges", {"id": NOPE}, frozenset({NF})),
    ("impact", {"id": NOPE}, frozenset({NF})),
    ("traverse", {"id": NOPE}, frozenset({NF})),
    (
        "unlink",
        {"source_id": "zzzz-a", "target_id": "zzzz-b", "edge_type": "relates_to"},
        frozenset({NF}),
    ),
    (
        "link",
        {"source_id": "zzzz-a", "target_id": "zzzz-b", "edge_type": "relates_to"},
        frozenset({NF}),
    ),
]

# (method, params with "__NUM__" where the number goes); every one out of range
HUGE_PLACES: list[tuple[str, dict[str, Any]]] = [
    ("recall", {"query": "x", "limit": "__NUM__"}),
    ("recall", {"query": "x", "min_confidence": "__NUM__"}),
    ("remember", {**G, "confidence": "__NUM__"}),
    ("remember", {**G, "dedup_threshold": "__NUM__"}),
    ("export", {"limit": "__NUM__"}),
    ("traverse", {"id": NOPE, "depth": "__NUM__"}),
    ("history", {"id": NOPE, "limit": "__NUM__"}),
    ("health", {"stale_days": "__NUM__"}),
    ("review", {"limit": "__NUM__"}),
    ("analytics", {"days": "__NUM__"}),
    ("restore", {"id": NOPE, "version": "__NUM__"}),
]


def huge_number(rng: random.Random, negative_ok: bool = True) -> bytes:
    """A number literal far out of every range: many digits, or a huge exponent."""
    sign = b"-" if negative_ok and rng.random() < 0.3 else b""
    r = rng.random()
    if r < 0.3:
        return sign + str(10 ** rng.randint(20, 300)).encode()
    if r < 0.5:
        return sign + b"9" * rng.randint(4400, 6000)  # past Python's int-string limit
    if r < 0.8:
        return sign + f"1e{rng.randint(309, 99999)}".encode()
    return sign + b"1" + b"0" * rng.randint(30, 400) + b".5e" + str(rng.randint(300, 900)).encode()


UTF8_BAD = [
    b"\xff",
    b"\xfe",
    b"\x80",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xe2\x82",
    b"\xf4\x90\x80\x80",
    b"\xc3",
]
SOUP = ["{", "}", "[", "]", ":", ",", '"a"', '"method"', "1", "-", ".5", "true", "null", " "]


def unknown_method(rng: random.Random, known: set[str]) -> str:
    fixed = [
        "Remember",
        "RECALL",
        "remember ",
        " recall",
        "rpc.discover",
        "__init__",
        "__class__",
        "shutdown\u0000",
        "status.",
        "get/",
        "rëmember",
        "记住",
        "",
        "tools/call",
        "initialize",
        "m" * rng.randint(1000, 60000),
    ]
    if rng.random() < 0.5:
        name = rng.choice(fixed)
    else:
        alphabet = string.ascii_letters + string.digits + "_/.-$"
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
    return name if name not in known else name + "_"


def deep(n: int) -> bytes:
    return b"[" * n + b"]" * n


def random_junk(rng: random.Random) -> bytes:
    data = rng.randbytes(rng.randint(1, 2048)).replace(b"\n", b"")
    return data if data.strip() else b"#" + data


def soup(rng: random.Random) -> bytes:
    data = "".join(rng.choice(SOUP) for _ in range(rng.randint(1, 60))).encode()
    return data if data.strip() else b"}"


def corrupt(rng: random.Random, data: bytes, insert: bytes) -> bytes:
    at = rng.randint(0, len(data))
    return data[:at] + insert + data[at:]


def oversize(rng: random.Random, make_request: Callable[[str], bytes]) -> Frame:
    size = int(OVERSIZE * rng.uniform(0.97, 1.05))
    r = rng.random()
    if r < 0.4:
        data = make_request("x" * size)
    elif r < 0.7:
        data = rng.randbytes(size).replace(b"\n", b" ")
    else:
        data = b" " * size + make_request("y")
    return Frame("oversize", data, "oversize", frozenset({TL}))


class DaemonFrames:
    """Frames for the daemon's socket."""

    WEIGHTS: ClassVar[dict[str, int]] = {
        "truncated": 12,
        "wrong-types": 12,
        "params-not-object": 3,
        "huge-numbers": 9,
        "deep-nesting": 6,
        "invalid-utf8": 8,
        "oversize": 2,
        "random-bytes": 8,
        "json-soup": 4,
        "nul-bytes": 6,
        "batch": 5,
        "unknown-method": 8,
        "bad-params": 14,
        "bad-envelope": 8,
    }

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ids = Ids(rng)
        self.known = set(p.METHODS)

    def sample(self, rid: Any) -> bytes:
        method, params = self.rng.choice(SAMPLES)
        return req(method, params, rid)

    def make(self, kind: str) -> Frame:
        rng, rid = self.rng, self.ids()
        f = Frame
        if kind == "truncated":
            whole = self.sample(rid)
            return f(kind, whole[: rng.randint(1, len(whole) - 1)], "error", frozenset({PE}))
        if kind == "wrong-types":
            method, base, field, values = rng.choice(WRONG_TYPES)
            params = {**base, field: rng.choice(values)}
            return f(kind, req(method, params, rid), "error", frozenset({IP}), rid)
        if kind == "params-not-object":
            method = rng.choice(["stats", "status", "get", "recall", "remember", "health"])
            return f(kind, req(method, rng.choice(NOT_AN_OBJECT), rid), "error", {IP}, rid)
        if kind == "huge-numbers":
            if rng.random() < 0.2:  # the id itself: unreadable (null), or echoed as sent
                data = with_number(req("nope", {}, "__NUM__"), huge_number(rng))
                return f(kind, data, "error", frozenset({IR, MNF}), ANY)
            method, params = rng.choice(HUGE_PLACES)
            data = with_number(req(method, params, rid), huge_number(rng))
            return f(kind, data, "error", frozenset({IP}), rid)
        if kind == "deep-nesting":
            n = DEEP + rng.randint(0, 1000)
            r = rng.random()
            if r < 0.2:  # deep enough to decode, too deep to keep: the verb refuses it
                depth = rng.randint(33, 900)
                meta = b'{"a":' + deep(depth - 1) + b"}"
                params = b'{"content":"x","scope":"global","metadata":' + meta + b"}"
                data = req("remember", "__P__", rid).replace(b'"__P__"', params)
                return f(kind, data, "error", frozenset({TL}), rid)
            if r < 0.4:
                data = req("status", rid=rid)[:-1] + b',"x":' + deep(n) + b"}"
            elif r < 0.55:
                params = b'{"content":"x","scope":"global","metadata":{"a":' + deep(n) + b"}}"
                data = req("remember", "__P__", rid).replace(b'"__P__"', params)
            elif r < 0.7:
                data = deep(n)
            elif r < 0.8:
                data = b'{"a":' * n + b"1" + b"}" * n
            elif r < 0.9:
                data = req("status", rid="__ID__").replace(b'"__ID__"', deep(n))
            else:  # never closed
                return f(kind, rng.choice([b"[" * n, b'{"a":' * n]), "error", {PE, IR})
            return f(kind, data, "error", frozenset({IR}))
        if kind == "invalid-utf8":
            data = corrupt(rng, self.sample(rid), rng.choice(UTF8_BAD))
            return f(kind, data, "error", frozenset({PE}))
        if kind == "oversize":
            return oversize(rng, lambda text: req("remember", {**G, "content": text}, rid))
        if kind == "random-bytes":
            return f(kind, random_junk(rng), "error", frozenset({PE, IR}))
        if kind == "json-soup":
            return f(kind, soup(rng), "error", frozenset({PE, IR}))
        if kind == "nul-bytes":
            r = rng.random()
            if r < 0.25:
                return f(kind, b"\x00" * rng.randint(1, 64), "error", frozenset({PE}))
            if r < 0.6:
                data = corrupt(rng, self.sample(rid), b"\x00" * rng.randint(1, 3))
                return f(kind, data, "error", frozenset({PE}))
            if r < 0.8:
                data = req(rng.choice(["status", "stats", "recall"]) + "\u0000", {}, rid)
                return f(kind, data, "error", frozenset({MNF}), rid)
            data = req("remember", {"content": "before\u0000after", "scope": "global"}, rid)
            return f(kind, data, "error", frozenset({IV}), rid)
        if kind == "batch":  # batches are served (PROTOCOL.md): malformed ones, then
            r = rng.random()
            if r < 0.15:
                return f(kind, b"[]", "error", frozenset({IR}))
            if r < 0.3:  # never closed
                return f(kind, b"[" + self.sample(rid), "error", frozenset({PE}))
            if r < 0.45:
                return f(kind, b"[1,2,3]", "errors", frozenset({IR}), ANY, 3)
            if r < 0.6:  # an array within the batch is an item refused, not a batch
                return f(kind, b"[[" + self.sample(rid) + b"]]", "errors", {IR}, ANY, 1)
            if r < 0.7:  # a notification alone (read-only): runs, and nothing comes back
                return f(kind, b"[" + req("stats", {}, notify=True) + b"]", "drop")
            items = [self.bad_item() for _ in range(rng.randint(1, 4))]
            data = b"[" + b",".join(items) + b"]"
            return f(kind, data, "errors", frozenset({MNF, IP}), ANY, len(items))
        if kind == "unknown-method":
            name = unknown_method(rng, self.known)
            if rng.random() < 0.3:  # a notification: never answered, not even with an error
                return f(kind, req(name, {}, notify=True), "drop")
            return f(kind, req(name, {}, rid), "error", frozenset({MNF}), rid)
        if kind == "bad-params":
            method, params, codes = rng.choice(BAD_PARAMS)
            if rng.random() < 0.2:
                return f(kind, req(method, params, notify=True), "drop")
            return f(kind, req(method, params, rid), "error", frozenset(codes), rid)
        if kind == "bad-envelope":
            return self.envelope(rid)
        raise ValueError(kind)

    def bad_item(self) -> bytes:
        """A request a batch may hold that must not run: an unknown method, or params of
        the wrong type."""
        if self.rng.random() < 0.5:
            return req(unknown_method(self.rng, self.known), {}, self.ids())
        method, base, field, values = self.rng.choice(WRONG_TYPES)
        return req(method, {**base, field: self.rng.choice(values)}, self.ids())

    def envelope(self, rid: Any) -> Frame:
        rng, f = self.rng, Frame
        valid = req("stats", {}, rid)
        choices: list[tuple[bytes, frozenset[int], Any]] = [
            (enc({"jsonrpc": "1.0", "method": "stats", "id": rid}), frozenset({IR}), rid),
            (enc({"jsonrpc": 2.0, "method": "stats", "id": rid}), frozenset({IR}), None),
            (enc({"method": "stats", "id": rid}), frozenset({IR}), None),
            (enc({"jsonrpc": None, "method": "stats", "id": rid}), frozenset({IR}), None),
            (enc({"jsonrpc": "2.0", "id": rid}), frozenset({IR}), None),
            (enc({"jsonrpc": "2.0", "method": 7, "id": rid}), frozenset({IR}), None),
            (enc({"jsonrpc": "2.0", "method": None, "id": rid}), frozenset({IR}), None),
            (enc({"jsonrpc": "2.0", "method": ["stats"], "id": rid}), frozenset({IR}), None),
            (enc({"jsonrpc": "2.0", "method": "stats", "id": True}), frozenset({IR}), None),
            (enc({"jsonrpc": "2.0", "method": "stats", "id": 1.5}), frozenset({IR}), None),
            (enc({"jsonrpc": "2.0", "method": "stats", "id": {}}), frozenset({IR}), None),
            (enc({"jsonrpc": "2.0", "method": "stats", "id": [rid]}), frozenset({IR}), None),
            (enc({"jsonrpc": "1.0", "method": "stats"}), frozenset({IR}), None),
            (
                enc({"jsonrpc": "2.0", "method": "stats", "id": rid, "enyal_expect": {"v": 1}}),
                frozenset({IR}),
                None,
            ),
            (
                enc(
                    {
                        "jsonrpc": "2.0",
                        "method": "remember",
                        "params": G,
                        "id": rid,
                        "enyal_expect": {"version": "9.9.9", "protocol": 1},
                    }
                ),
                frozenset({VM}),
                rid,
            ),
            (valid[:-1] + b',"method":"nope"}', frozenset({MNF}), rid),
            (self.sample(rid) + b" x", frozenset({PE}), None),
            (self.sample(rid) + self.sample(rid), frozenset({PE}), None),
            (valid.replace(b'"', b"'"), frozenset({PE}), None),
            (b"\xef\xbb\xbf" + valid, frozenset({PE}), None),
            (req("nope", {}, rid) + b"\r", frozenset({MNF}), rid),
            (req("recall", {"query": "__S__"}, rid).replace(b"__S__", b"\\ud800 x"), {PE}, None),
        ]
        data, codes, answer_id = rng.choice(choices)
        return f("bad-envelope", data, "error", frozenset(codes), answer_id)


# --- the MCP shim --------------------------------------------------------------------------

TOOL_OF = {spec.method: spec.name for spec in mcp_tools.TOOLS}
# Tool arguments the Params Structs refuse (the shim checks them before any daemon call).
MCP_BAD_ARGS: list[tuple[str, dict[str, Any]]] = (
    [
        (TOOL_OF[m], {**base, field: v})
        for m, base, field, values in WRONG_TYPES
        if m in TOOL_OF
        for v in values
    ]
    + [
        (TOOL_OF[m], prm)
        for m, prm, codes in BAD_PARAMS
        if m in TOOL_OF and codes == frozenset({IP})
    ]
    + [
        ("enyal_remember", {**G, "cwd": "/elsewhere"}),  # the shim fills cwd itself
        ("enyal_recall", {"query": "x", "cwd": "/elsewhere"}),
    ]
)
HELLO = {"capabilities": {}, "clientInfo": {"name": "torture", "version": "0"}}


class McpFrames:
    """Lines for enyal-mcp's stdin, sent after initialize."""

    WEIGHTS: ClassVar[dict[str, int]] = {
        "truncated": 10,
        "wrong-types": 10,
        "huge-numbers": 6,
        "deep-nesting": 6,
        "invalid-utf8": 8,
        "oversize": 2,
        "random-bytes": 8,
        "json-soup": 4,
        "nul-bytes": 6,
        "batch": 5,
        "unknown-method": 8,
        "bad-params": 12,
        "bad-envelope": 8,
        "not-requests": 5,
    }

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ids = Ids(rng)
        self.known = {"ping", "initialize", "tools/list", "tools/call", "server/discover"}

    def call(self, name: Any, arguments: Any, rid: Any, **kw: Any) -> bytes:
        return req("tools/call", {"name": name, "arguments": arguments}, rid, **kw)

    def sample(self, rid: Any) -> bytes:
        r = self.rng.random()
        if r < 0.25:
            return req("initialize", {**HELLO, "protocolVersion": "2025-11-25"}, rid)
        if r < 0.5:
            return self.call("enyal_remember", {**G, "tags": ["ops"]}, rid)
        if r < 0.75:
            return self.call("enyal_recall", {"query": "how do we deploy?"}, rid)
        return req("tools/list", {}, rid)

    def make(self, kind: str) -> Frame:
        rng, rid, f = self.rng, self.ids(), Frame
        if kind == "truncated":
            whole = self.sample(rid)
            return f(kind, whole[: rng.randint(1, len(whole) - 1)], "error", frozenset({PE}))
        if kind == "wrong-types":
            r = rng.random()
            if r < 0.5:
                name, arguments = rng.choice(MCP_BAD_ARGS)
                return f(kind, self.call(name, arguments, rid), "tool-error", frozenset(), rid)
            if r < 0.65:
                data = self.call(rng.choice([5, None, [], {}]), {}, rid)
                return f(kind, data, "error", frozenset({IP}), rid)
            if r < 0.8:
                data = self.call("enyal_recall", rng.choice(["x", 5, [], True]), rid)
                return f(kind, data, "error", frozenset({IP}), rid)
            if r < 0.9:
                version = rng.choice([5, None, [], {}])
                data = req("initialize", {**HELLO, "protocolVersion": version}, rid)
                return f(kind, data, "error", frozenset({IP}), rid)
            method = rng.choice(["tools/call", "tools/list", "ping"])
            data = req(method, rng.choice([[], "x", 5, True]), rid)
            return f(kind, data, "error", frozenset({IR}), rid)
        if kind == "huge-numbers":
            r = rng.random()
            if r < 0.3:
                data = with_number(req("nope", {}, "__NUM__"), huge_number(rng))
                return f(kind, data, "error", frozenset({PE, IR, MNF}), ANY)
            tool, field = rng.choice(
                [("enyal_recall", "limit"), ("enyal_recall", "min_confidence"),
                 ("enyal_history", "limit"), ("enyal_health", "stale_days"),
                 ("enyal_traverse", "depth")]
            )  # fmt: skip
            arguments = {"id": "zzzz"} if tool in ("enyal_history", "enyal_traverse") else {}
            if tool == "enyal_recall":
                arguments = {"query": "x"}
            data = with_number(
                self.call(tool, {**arguments, field: "__NUM__"}, rid), huge_number(rng)
            )
            return f(kind, data, "tool-error", frozenset({PE}), rid)
        if kind == "deep-nesting":
            n = DEEP + rng.randint(0, 1000)
            r = rng.random()
            if r < 0.3:
                data = req("ping", rid=rid)[:-1] + b',"params":{"x":' + deep(n) + b"}}"
            elif r < 0.5:
                data = self.call("enyal_remember", "__A__", rid).replace(
                    b'"__A__"', b'{"content":"x","metadata":{"a":' + deep(n) + b"}}"
                )
            elif r < 0.7:
                data = deep(n)
            elif r < 0.8:
                data = b'{"a":' * n + b"1" + b"}" * n
            elif r < 0.9:
                data = req("ping", rid="__ID__").replace(b'"__ID__"', deep(n))
            else:
                return f(kind, rng.choice([b"[" * n, b'{"a":' * n]), "error", {PE, IR})
            return f(kind, data, "error", frozenset({IR}), rid)
        if kind == "invalid-utf8":
            data = corrupt(rng, self.sample(rid), rng.choice(UTF8_BAD))
            return f(kind, data, "error", frozenset({PE}))
        if kind == "oversize":
            return oversize(rng, lambda text: req("ping", {"x": text}, rid))
        if kind == "random-bytes":
            return f(kind, random_junk(rng), "error", frozenset({PE, IR}))
        if kind == "json-soup":
            return f(kind, soup(rng), "error", frozenset({PE, IR}))
        if kind == "nul-bytes":
            r = rng.random()
            if r < 0.3:
                return f(kind, b"\x00" * rng.randint(1, 64), "error", frozenset({PE}))
            if r < 0.7:
                data = corrupt(rng, self.sample(rid), b"\x00" * rng.randint(1, 3))
                return f(kind, data, "error", frozenset({PE}))
            data = req(rng.choice(["ping", "tools/list"]) + "\u0000", {}, rid)
            return f(kind, data, "error", frozenset({MNF}), rid)
        if kind == "batch":
            one = req("ping", rid=rid)
            data = rng.choice([b"[" + one + b"," + one + b"]", b"[]", b"[" + one + b"]", b"[1]"])
            return f(kind, data, "error", frozenset({IR}))
        if kind == "unknown-method":
            name = unknown_method(rng, self.known)
            if rng.random() < 0.3:
                return f(kind, req(name, {}, notify=True), "drop")
            return f(kind, req(name, {}, rid), "error", frozenset({MNF}), rid)
        if kind == "bad-params":
            r = rng.random()
            if r < 0.15:  # a tool call as a notification: ignored, never run
                name, arguments = rng.choice(MCP_BAD_ARGS)
                return f(kind, self.call(name, arguments, None, notify=True), "drop")
            if r < 0.3:
                data = self.call(rng.choice(["enyal_nope", "remember", "", "ENYAL_GET"]), {}, rid)
                return f(kind, data, "error", frozenset({IP}), rid)
            if r < 0.4:
                data = req(rng.choice(["initialize", "server/discover"]), {}, rid)
                return f(kind, data, "error", frozenset({IP}), rid)
            if r < 0.5:
                return f(kind, req("tools/call", {}, rid), "error", frozenset({IP}), rid)
            name, arguments = rng.choice(MCP_BAD_ARGS)
            return f(kind, self.call(name, arguments, rid), "tool-error", frozenset(), rid)
        if kind == "bad-envelope":
            choices: list[tuple[bytes, frozenset[int], Any]] = [
                (enc({"jsonrpc": "1.0", "method": "ping", "id": rid}), frozenset({IR}), rid),
                (enc({"method": "ping", "id": rid}), frozenset({IR}), rid),
                (enc({"jsonrpc": "2.0", "id": rid}), frozenset({IR}), rid),
                (enc({"jsonrpc": "2.0"}), frozenset({IR}), None),
                (enc({"jsonrpc": "2.0", "method": 7, "id": rid}), frozenset({IR}), rid),
                (enc({"jsonrpc": "2.0", "method": "ping", "id": None}), frozenset({IR}), None),
                (enc({"jsonrpc": "2.0", "method": "ping", "id": True}), frozenset({IR}), None),
                (enc({"jsonrpc": "2.0", "method": "ping", "id": 1.5}), frozenset({IR}), None),
                (enc({"jsonrpc": "2.0", "method": "ping", "id": {}}), frozenset({IR}), None),
                (enc({"jsonrpc": "1.0", "method": "ping"}), frozenset({IR}), None),
                (req("ping", rid=rid) + b" x", frozenset({PE}), None),
                (req("ping", rid=rid) * 2, frozenset({PE}), None),
                (b"\xef\xbb\xbf" + req("ping", rid=rid), frozenset({PE}), None),
                (req("nope", rid=rid) + b"\r", frozenset({MNF}), rid),
                (req("ping", rid="__S__").replace(b"__S__", b"\\udc00"), {PE}, None),
            ]
            data, codes, answer_id = rng.choice(choices)
            return f(kind, data, "error", frozenset(codes), answer_id)
        if kind == "not-requests":  # responses and notifications: dropped in silence
            data = rng.choice(
                [
                    enc({"jsonrpc": "2.0", "id": rid, "result": {}}),
                    enc({"jsonrpc": "2.0", "id": rid, "error": {"code": 1, "message": "x"}}),
                    req("notifications/initialized", notify=True),
                    req("notifications/cancelled", {"requestId": rid}, notify=True),
                    req("notifications/cancelled", {"requestId": [1, 2]}, notify=True),
                    req("notifications/progress", {"progress": "lots"}, notify=True),
                ]
            )
            return f(kind, data, "drop")
        raise ValueError(kind)


def generate(maker: DaemonFrames | McpFrames, n: int) -> list[Frame]:
    """n frames: every kind once first (so a short run still covers them all), then
    kinds drawn by weight."""
    kinds = list(maker.WEIGHTS)
    weights = list(maker.WEIGHTS.values())
    out = [maker.make(k) for k in kinds[:n]]
    while len(out) < n:
        out.append(maker.make(maker.rng.choices(kinds, weights)[0]))
    return out

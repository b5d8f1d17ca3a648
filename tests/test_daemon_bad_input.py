"""Whatever a client sends, the daemon answers with the right JSON-RPC error object,
stays up, and leaves the database as it was.

Frames go over raw Unix sockets, so malformed bytes reach the daemon exactly as
written. The read-only cases share one daemon; around each, a snapshot of every
entry (every field but the access bookkeeping a recall bumps) and the rid sets of the
three stores must come out unchanged, and a valid request must still be answered.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from daemon_support import (
    RawConn,
    RunningDaemon,
    census,
    error_of,
    export_all,
    frame,
    result_of,
    running,
    snapshot,
)
from enyal_protocol import __version__
from enyal_protocol import wire as p

SEED: list[dict[str, Any]] = [
    {"content": "The primary database is PostgreSQL 16", "content_type": "fact", "tags": ["db"]},
    {"content": "Use ruff to lint and format Python code", "content_type": "convention"},
    {"content": "Deploys go out every Tuesday afternoon", "content_type": "decision"},
    {"content": "Prefer near-term fixes over big rewrites", "content_type": "preference"},
]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    with running(tmp_path_factory.mktemp("bad-input") / "home") as d:
        for item in SEED:
            d.call("remember", {**item, "scope": "global"})
        yield d
        # Bad input is answered as an error object, never by a crash in a handler.
        assert "Traceback" not in d.log.text(), d.log.text()


@pytest.fixture(scope="module")
def seeded_id(shared: RunningDaemon) -> str:
    return str(export_all(shared.call)[0]["id"])


@pytest.fixture
def unchanged(shared: RunningDaemon) -> Iterator[RunningDaemon]:
    """The daemon, checked afterwards: still serving, database exactly as before."""
    before, rids = snapshot(shared.call), census(shared.paths.db)
    yield shared
    assert shared.proc.alive(), "the daemon died"
    assert shared.call("status")["pid"] == shared.proc.proc.pid
    assert snapshot(shared.call) == before
    after = census(shared.paths.db)
    assert (after.entries, after.vectors, after.fts) == (rids.entries, rids.vectors, rids.fts)


def raw(method: str, params: Any, req_id: Any = 1) -> bytes:
    return frame(method, params, req_id)


def envelope(**fields: Any) -> bytes:
    return json.dumps(fields).encode() + b"\n"


LONG = "x" * (p.MAX_FRAME_BYTES // 2)


def nested_metadata(depth: int) -> bytes:
    """remember params whose metadata nests `depth` levels (the object itself is one),
    written as bytes: encoding it with json would hit Python's own recursion limit."""
    inner = b"[" * (depth - 1) + b"]" * (depth - 1)
    return b'{"content":"x","scope":"global","metadata":{"a":' + inner + b"}}"


DEEP_METADATA = nested_metadata(900)
TOO_MANY = p.MAX_BATCH_REQUESTS + 1  # remembers in one batch: refused whole, none run


# (name, frame, expected code, expected response id)
ENVELOPE_CASES: list[tuple[str, bytes, int, Any]] = [
    ("truncated-json", b'{"jsonrpc": "2.0", "method": "status", "id": 1\n', p.PARSE_ERROR, None),
    ("not-json", b"hello daemon\n", p.PARSE_ERROR, None),
    ("trailing-garbage", b'{"jsonrpc":"2.0","method":"status","id":1} x\n', p.PARSE_ERROR, None),
    ("single-quotes", b"{'jsonrpc':'2.0','method':'status','id':1}\n", p.PARSE_ERROR, None),
    ("lone-surrogate-escape", raw("recall", {"query": "\ud800 x"}), p.PARSE_ERROR, None),
    (
        "invalid-utf8",
        b'{"jsonrpc":"2.0","id":1,"method":"remember","params":'
        b'{"content":"bad \xff\xfe bytes","scope":"global"}}\n',
        p.PARSE_ERROR,
        None,
    ),
    (
        "overlong-utf8",
        b'{"jsonrpc":"2.0","id":1,"method":"remember","params":'
        b'{"content":"\xc0\xaf","scope":"global"}}\n',
        p.PARSE_ERROR,
        None,
    ),
    (
        "utf8-surrogate",
        b'{"jsonrpc":"2.0","id":1,"method":"remember","params":'
        b'{"content":"\xed\xa0\x80","scope":"global"}}\n',
        p.PARSE_ERROR,
        None,
    ),
    # A batch array is served (tests/test_batch.py); these are refused whole, one error.
    ("empty-batch", b"[]\n", p.INVALID_REQUEST, None),
    ("empty-batch-spaced", b"  [ ]\n", p.INVALID_REQUEST, None),
    ("truncated-batch", b"[" + raw("status", {}).strip() + b",\n", p.PARSE_ERROR, None),
    (
        "batch-too-long",
        b"["
        + b",".join([raw("remember", {"content": "x", "scope": "global"}).strip()] * TOO_MANY)
        + b"]\n",
        p.INVALID_REQUEST,
        None,
    ),
    ("batch-not-utf8", b'[{"jsonrpc":"2.0","id":1,"method":"st\xffatus"}]\n', p.PARSE_ERROR, None),
    ("deep-batch", b"[" * 5000 + b"]" * 5000 + b"\n", p.INVALID_REQUEST, None),
    ("number", b"42\n", p.INVALID_REQUEST, None),
    ("string", b'"status"\n', p.INVALID_REQUEST, None),
    ("null", b"null\n", p.INVALID_REQUEST, None),
    ("jsonrpc-1.0", envelope(jsonrpc="1.0", method="status", id=5), p.INVALID_REQUEST, 5),
    ("jsonrpc-number", envelope(jsonrpc=2.0, method="status", id=5), p.INVALID_REQUEST, None),
    ("jsonrpc-missing", envelope(method="status", id=5), p.INVALID_REQUEST, None),
    ("method-missing", envelope(jsonrpc="2.0", id=5), p.INVALID_REQUEST, None),
    ("method-number", envelope(jsonrpc="2.0", method=7, id=5), p.INVALID_REQUEST, None),
    ("id-bool", envelope(jsonrpc="2.0", method="status", id=True), p.INVALID_REQUEST, None),
    ("id-float", envelope(jsonrpc="2.0", method="status", id=1.5), p.INVALID_REQUEST, None),
    ("id-object", envelope(jsonrpc="2.0", method="status", id={}), p.INVALID_REQUEST, None),
    (
        "deep-envelope",
        b'{"jsonrpc":"2.0","method":"status","id":1,"x":' + b"[" * 5000 + b"]" * 5000 + b"}\n",
        p.INVALID_REQUEST,
        None,
    ),
    # Past the decoder's nesting limit the request cannot even be read: no id to answer to.
    (
        "deep-params",
        b'{"jsonrpc":"2.0","method":"remember","id":1,"params":' + nested_metadata(5000) + b"}\n",
        p.INVALID_REQUEST,
        None,
    ),
    ("unknown-method", raw("nope", {}, "abc"), p.METHOD_NOT_FOUND, "abc"),
    ("empty-method", raw("", {}, 3), p.METHOD_NOT_FOUND, 3),
    ("method-case", raw("Remember", {"content": "x", "scope": "global"}, 3), p.METHOD_NOT_FOUND, 3),
    ("method-dunder", raw("__init__", {}, 3), p.METHOD_NOT_FOUND, 3),
]


# (name, method, params, expected code). Each goes out with id 9.
PARAM_CASES: list[tuple[str, str, Any, int]] = [
    # not an object
    ("params-array", "stats", [], p.INVALID_PARAMS),
    ("params-null", "stats", None, p.INVALID_PARAMS),
    ("params-string", "recall", "find me", p.INVALID_PARAMS),
    ("params-number", "get", 5, p.INVALID_PARAMS),
    # wrong types
    ("content-number", "remember", {"content": 5, "scope": "global"}, p.INVALID_PARAMS),
    ("content-list", "remember", {"content": ["a"], "scope": "global"}, p.INVALID_PARAMS),
    ("tags-string", "remember", {"content": "x", "scope": "global", "tags": "a"}, p.INVALID_PARAMS),
    (
        "tags-numbers",
        "remember",
        {"content": "x", "scope": "global", "tags": [1]},
        p.INVALID_PARAMS,
    ),
    (
        "metadata-list",
        "remember",
        {"content": "x", "scope": "global", "metadata": []},
        p.INVALID_PARAMS,
    ),
    (
        "confidence-string",
        "remember",
        {"content": "x", "scope": "global", "confidence": "high"},
        p.INVALID_PARAMS,
    ),
    ("limit-string", "recall", {"query": "x", "limit": "10"}, p.INVALID_PARAMS),
    ("limit-float", "recall", {"query": "x", "limit": 10.5}, p.INVALID_PARAMS),
    ("deprecated-int", "recall", {"query": "x", "include_deprecated": 1}, p.INVALID_PARAMS),
    ("hard-string", "forget", {"id": "x", "hard": "yes"}, p.INVALID_PARAMS),
    ("id-number", "get", {"id": 5}, p.INVALID_PARAMS),
    ("lines-string", "import", {"lines": "{}"}, p.INVALID_PARAMS),
    # missing
    ("remember-empty", "remember", {}, p.INVALID_PARAMS),
    ("recall-empty", "recall", {}, p.INVALID_PARAMS),
    ("get-empty", "get", {}, p.INVALID_PARAMS),
    ("update-empty", "update", {}, p.INVALID_PARAMS),
    ("forget-empty", "forget", {}, p.INVALID_PARAMS),
    ("restore-empty", "restore", {}, p.INVALID_PARAMS),
    ("import-empty", "import", {}, p.INVALID_PARAMS),
    ("by-scope-no-file", "recall_by_scope", {"query": "x"}, p.INVALID_PARAMS),
    # unknown fields are an error, not silently ignored
    (
        "remember-extra",
        "remember",
        {"content": "Colourful", "scope": "global", "colour": "red"},
        p.INVALID_PARAMS,
    ),
    ("recall-extra", "recall", {"query": "x", "sort": "asc"}, p.INVALID_PARAMS),
    ("stats-extra", "stats", {"verbose": True}, p.INVALID_PARAMS),
    ("get-extra", "get", {"id": "x", "hard": True}, p.INVALID_PARAMS),
    # content
    ("content-empty", "remember", {"content": "", "scope": "global"}, p.INVALID_PARAMS),
    ("content-whitespace", "remember", {"content": " \n\t  ", "scope": "global"}, p.INVALID_VALUE),
    ("content-nul", "remember", {"content": "a\u0000b", "scope": "global"}, p.INVALID_VALUE),
    (
        "content-oversize",
        "remember",
        {"content": "x" * (64 * 1024 + 1), "scope": "global"},
        p.TOO_LARGE,
    ),
    # 32,769 characters but 65,538 bytes: the limit is in bytes
    (
        "content-oversize-bytes",
        "remember",
        {"content": "é" * 32769, "scope": "global"},
        p.TOO_LARGE,
    ),
    ("content-half-frame", "remember", {"content": LONG, "scope": "global"}, p.TOO_LARGE),
    ("update-oversize", "update", {"id": "x", "content": "x" * (64 * 1024 + 1)}, p.TOO_LARGE),
    ("update-whitespace", "update", {"id": "x", "content": "   "}, p.INVALID_VALUE),
    (
        "metadata-oversize",
        "remember",
        {"content": "x", "scope": "global", "metadata": {"k": "v" * (64 * 1024)}},
        p.TOO_LARGE,
    ),
    # Deep enough to decode, too deep to keep: a value nested near the decoder's limit
    # could not be encoded again inside a bigger answer (an export page, a recall).
    ("metadata-deep", "remember", DEEP_METADATA, p.TOO_LARGE),
    ("metadata-33-levels", "remember", nested_metadata(33), p.TOO_LARGE),
    # enums
    (
        "content-type",
        "remember",
        {"content": "x", "scope": "global", "content_type": "opinion"},
        p.INVALID_PARAMS,
    ),
    ("content-type-case", "recall", {"query": "x", "content_type": "Fact"}, p.INVALID_PARAMS),
    ("scope", "remember", {"content": "x", "scope": "universe"}, p.INVALID_PARAMS),
    ("recall-scope", "recall", {"query": "x", "scope": "galaxy"}, p.INVALID_PARAMS),
    (
        "source-type",
        "remember",
        {"content": "x", "scope": "global", "source_type": "email"},
        p.INVALID_PARAMS,
    ),
    ("dedup", "remember", {"content": "x", "scope": "global", "dedup": "maybe"}, p.INVALID_PARAMS),
    (
        "by-scope-type",
        "recall_by_scope",
        {"query": "x", "file_path": "/a", "content_type": "?"},
        p.INVALID_PARAMS,
    ),
    # bounds
    ("limit-0", "recall", {"query": "x", "limit": 0}, p.INVALID_PARAMS),
    ("limit-101", "recall", {"query": "x", "limit": 101}, p.INVALID_PARAMS),
    ("limit-negative", "recall", {"query": "x", "limit": -1}, p.INVALID_PARAMS),
    (
        "by-scope-limit",
        "recall_by_scope",
        {"query": "x", "file_path": "/a", "limit": 101},
        p.INVALID_PARAMS,
    ),
    (
        "confidence-1.5",
        "remember",
        {"content": "x", "scope": "global", "confidence": 1.5},
        p.INVALID_PARAMS,
    ),
    (
        "confidence-negative",
        "remember",
        {"content": "x", "scope": "global", "confidence": -0.1},
        p.INVALID_PARAMS,
    ),
    ("update-confidence", "update", {"id": "x", "confidence": 1.5}, p.INVALID_PARAMS),
    (
        "threshold",
        "remember",
        {"content": "x", "scope": "global", "dedup_threshold": 1.01},
        p.INVALID_PARAMS,
    ),
    ("min-confidence", "recall", {"query": "x", "min_confidence": 2}, p.INVALID_PARAMS),
    ("export-limit-0", "export", {"limit": 0}, p.INVALID_PARAMS),
    ("export-limit-1001", "export", {"limit": 1001}, p.INVALID_PARAMS),
    ("export-after-negative", "export", {"after": -1}, p.INVALID_PARAMS),
    ("import-first-line", "import", {"lines": ["{}"], "first_line": 0}, p.INVALID_PARAMS),
    ("import-too-many", "import", {"lines": ['{"content": "x"}'] * 1001}, p.INVALID_PARAMS),
    (
        "tags-33",
        "remember",
        {"content": "x", "scope": "global", "tags": [f"t{i}" for i in range(33)]},
        p.INVALID_PARAMS,
    ),
    ("tag-empty", "remember", {"content": "x", "scope": "global", "tags": [""]}, p.INVALID_PARAMS),
    (
        "tag-65",
        "remember",
        {"content": "x", "scope": "global", "tags": ["t" * 65]},
        p.INVALID_PARAMS,
    ),
    ("id-empty", "get", {"id": ""}, p.INVALID_PARAMS),
    ("id-65", "get", {"id": "i" * 65}, p.INVALID_PARAMS),
    ("query-empty", "recall", {"query": ""}, p.INVALID_PARAMS),
    ("query-4097", "recall", {"query": "q" * 4097}, p.INVALID_PARAMS),
    (
        "source-ref-1025",
        "remember",
        {"content": "x", "scope": "global", "source_ref": "r" * 1025},
        p.INVALID_PARAMS,
    ),
    # well-formed but unacceptable values
    ("query-nul", "recall", {"query": "a\u0000b"}, p.INVALID_VALUE),
    (
        "by-scope-query-nul",
        "recall_by_scope",
        {"query": "a\u0000b", "file_path": "/a.py"},
        p.INVALID_VALUE,
    ),
    (
        "scope-path-nul",
        "remember",
        {"content": "x", "scope": "file", "scope_path": "/a\u0000b"},
        p.INVALID_VALUE,
    ),
    ("cwd-nul", "remember", {"content": "x", "cwd": "/tmp\u0000x"}, p.INVALID_VALUE),
    (
        "relative-without-cwd",
        "remember",
        {"content": "x", "scope": "file", "scope_path": "a.py"},
        p.INVALID_VALUE,
    ),
    ("file-scope-without-path", "remember", {"content": "x", "scope": "file"}, p.INVALID_VALUE),
    ("project-without-cwd", "remember", {"content": "x"}, p.INVALID_VALUE),
    (
        "global-with-path",
        "remember",
        {"content": "x", "scope": "global", "scope_path": "/x"},
        p.INVALID_VALUE,
    ),
    ("recall-project-without-cwd", "recall", {"query": "x", "scope": "project"}, p.INVALID_VALUE),
    ("by-scope-relative", "recall_by_scope", {"query": "x", "file_path": "a.py"}, p.INVALID_VALUE),
    # unknown ids
    ("get-unknown", "get", {"id": "no-such-id"}, p.NOT_FOUND),
    ("forget-unknown", "forget", {"id": "no-such-id"}, p.NOT_FOUND),
    ("forget-hard-unknown", "forget", {"id": "no-such-id", "hard": True}, p.NOT_FOUND),
    ("restore-unknown", "restore", {"id": "no-such-id"}, p.NOT_FOUND),
    ("update-unknown", "update", {"id": "no-such-id", "confidence": 0.5}, p.NOT_FOUND),
    ("update-unknown-content", "update", {"id": "no-such-id", "content": "new"}, p.NOT_FOUND),
    # SQL in an id is a string like any other
    ("sql-id-get", "get", {"id": "x' OR '1'='1"}, p.NOT_FOUND),
    ("sql-id-forget", "forget", {"id": "x' OR 1=1 --", "hard": True}, p.NOT_FOUND),
    (
        "sql-id-drop",
        "forget",
        {"id": "1; DROP TABLE context_entries; --", "hard": True},
        p.NOT_FOUND,
    ),
    ("sql-id-restore", "restore", {"id": '" OR ""="'}, p.NOT_FOUND),
    ("sql-id-update", "update", {"id": "') OR 1=1 --", "confidence": 0.1}, p.NOT_FOUND),
]


@pytest.mark.parametrize(
    ("data", "code", "resp_id"),
    [pytest.param(data, code, rid, id=name) for name, data, code, rid in ENVELOPE_CASES],
)
def test_malformed_frame(unchanged: RunningDaemon, data: bytes, code: int, resp_id: Any) -> None:
    with RawConn(unchanged.paths.socket) as conn:
        conn.send(data)
        resp = conn.read()
        assert resp["jsonrpc"] == "2.0" and resp["id"] == resp_id
        assert error_of(resp)["code"] == code, resp
        # The connection survives a bad frame: the next request on it is served.
        assert "pid" in result_of(conn.request("status", {}, 2))


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [pytest.param(m, prm, code, id=name) for name, m, prm, code in PARAM_CASES],
)
def test_bad_params(unchanged: RunningDaemon, method: str, params: Any, code: int) -> None:
    with RawConn(unchanged.paths.socket) as conn:
        if isinstance(params, bytes):  # already JSON
            head = json.dumps({"jsonrpc": "2.0", "id": 9, "method": method})[:-1].encode()
            conn.send(head + b', "params": ' + params + b"}\n")
        else:
            msg = {"jsonrpc": "2.0", "id": 9, "method": method, "params": params}
            conn.send(json.dumps(msg).encode() + b"\n")
        resp = conn.read()
        assert resp["id"] == 9
        assert error_of(resp)["code"] == code, resp
        assert "pid" in result_of(conn.request("status", {}, 10))


def test_params_may_be_omitted(unchanged: RunningDaemon) -> None:
    # Methods without required params accept a request with no "params" member at all.
    with RawConn(unchanged.paths.socket) as conn:
        conn.send(b'{"jsonrpc":"2.0","id":1,"method":"stats"}\n')
        assert "total" in result_of(conn.read())


def test_update_with_nothing_to_change(unchanged: RunningDaemon, seeded_id: str) -> None:
    with RawConn(unchanged.paths.socket) as conn:
        assert error_of(conn.request("update", {"id": seeded_id}))["code"] == p.INVALID_VALUE


FTS_QUERIES = [
    '"',
    "*",
    "NEAR(",
    "OR",
    "AND",
    "NOT",
    "-",
    "^",
    "(",
    ")",
    "content:x",
    "{content}: x",
    '"unterminated',
    "a OR",
    "-a",
    "'",
    "\\",
    "%",
    "_",
    ";",
    "--",
    "NEAR(a b, 2)",
    "content:database",
    "database*",
    '"database',
    "NEAR(database",
    "-database",
    "^database",
    "database OR",
    "database NOT lint",
    "(database",
    "database)",
]
SQL_QUERIES = [
    "' OR 1=1 --",
    "'; DROP TABLE context_entries; --",
    '") UNION SELECT * FROM context_entries --',
    "x' AND (SELECT count(*) FROM context_vectors) > 0 --",
]


@pytest.mark.parametrize("query", FTS_QUERIES + SQL_QUERIES)
def test_query_syntax_is_plain_text(unchanged: RunningDaemon, query: str) -> None:
    with RawConn(unchanged.paths.socket) as conn:
        res = result_of(conn.request("recall", {"query": query, "min_confidence": 0.0}))
        assert isinstance(res["results"], list)
        by_scope = conn.request(
            "recall_by_scope", {"query": query, "file_path": "/srv/app.py", "min_confidence": 0}
        )
        assert isinstance(result_of(by_scope)["results"], list)
    if "database" in query:
        # The operators are ignored, the word is still matched literally.
        hits = {h["content"]: h for h in res["results"]}
        assert hits[SEED[0]["content"]]["keyword"] > 0.0, res


def test_whitespace_frames_are_skipped(unchanged: RunningDaemon) -> None:
    # A blank line is not a request: it gets no answer (not even an error), and the
    # request after it gets the first response on the connection.
    with RawConn(unchanged.paths.socket) as conn:
        conn.send(b"   \t  \n\n\r\n" + frame("status", {}, 3))
        assert conn.read()["id"] == 3
    with RawConn(unchanged.paths.socket) as conn:
        conn.send(b"   ")  # and at the end of the stream
        conn.sock.shutdown(socket.SHUT_WR)
        assert conn.at_eof()


def test_unterminated_last_frame_is_answered(unchanged: RunningDaemon) -> None:
    # A client that writes its last request without the newline and half-closes.
    with RawConn(unchanged.paths.socket) as conn:
        conn.send(frame("status", {}, 4).rstrip(b"\n"))
        conn.sock.shutdown(socket.SHUT_WR)
        assert result_of(conn.read())["pid"] == unchanged.proc.proc.pid
        assert conn.at_eof()


@pytest.mark.parametrize("newline", [False, True], ids=["no-newline", "newline-after"])
def test_oversize_frame_closes_the_connection(unchanged: RunningDaemon, newline: bool) -> None:
    head = b'{"jsonrpc":"2.0","id":1,"method":"remember","params":{"content":"'
    body = head + b"a" * (p.MAX_FRAME_BYTES + 4096)
    if newline:
        body += b'","scope":"global"}}\n'
    with RawConn(unchanged.paths.socket) as conn:
        # The daemon may close before it has all of it; its answer is already here.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.send(body)
        resp = conn.read()
        assert resp["id"] is None
        assert error_of(resp)["code"] == p.TOO_LARGE, resp
        assert conn.at_eof()
    # The daemon itself is fine: new connections are served.
    with RawConn(unchanged.paths.socket) as conn:
        assert "pid" in result_of(conn.request("status", {}, 2))


def test_export_cursor_past_the_end(unchanged: RunningDaemon) -> None:
    with RawConn(unchanged.paths.socket) as conn:
        for after in (10**6, 2**63 - 1, 2**63, 2**70):
            page = result_of(conn.request("export", {"after": after}))
            assert page == {"entries": [], "next": None}, after


# --- bad input that writes (each checks exactly what it changed) -------------------------


def test_sql_and_odd_text_as_content_is_stored_verbatim(shared: RunningDaemon) -> None:
    texts = [
        "Robert'); DROP TABLE context_entries; --",
        "x' OR '1'='1",
        "'; DELETE FROM context_vectors; --",
        "INSERT INTO context_fts(context_fts) VALUES('delete-all')",
        'He said "NEAR(a b)" OR * -x ^y content:z',
        "Emoji 🚀, RTL עברית, combining e\u0301, zero-width \u200b joiner",
    ]
    before = census(shared.paths.db)
    made = [shared.call("remember", {"content": t, "scope": "global"}) for t in texts]
    for text, res in zip(texts, made, strict=True):
        assert res["action"] == "created"
        assert shared.call("get", {"id": res["id"]})["content"] == text
    after = census(shared.paths.db)
    after.assert_consistent()
    assert len(after.entries) == len(before.entries) + len(texts)
    # Found by its own words, through FTS, like any other entry.
    hits = shared.call("recall", {"query": "Robert DROP TABLE", "min_confidence": 0})
    assert made[0]["id"] in {h["id"] for h in hits["results"]}


def test_nul_in_other_fields_round_trips(shared: RunningDaemon) -> None:
    # Only content (indexed, embedded) and paths refuse NUL; elsewhere it is just a
    # character and must come back whole, not cut at the NUL.
    res = shared.call(
        "remember",
        {
            "content": "An entry with NULs around it",
            "scope": "global",
            "source_ref": "ref\u0000tail",
            "tags": ["t\u0000ag"],
            "metadata": {"k\u0000": "v\u0000v"},
        },
    )
    got = shared.call("get", {"id": res["id"]})
    assert got["source_ref"] == "ref\u0000tail"
    assert got["tags"] == ["t\u0000ag"]
    assert got["metadata"] == {"k\u0000": "v\u0000v"}


def test_content_at_the_size_limit_is_accepted(shared: RunningDaemon) -> None:
    for text in ("y" * (64 * 1024), "é" * (32 * 1024)):  # both exactly 65,536 bytes
        res = shared.call("remember", {"content": text, "scope": "global"})
        assert res["action"] == "created"
        assert shared.call("get", {"id": res["id"]})["content"] == text


def test_import_reports_bad_lines_and_stores_the_good(shared: RunningDaemon) -> None:
    good_a = {"content": "Imported good line A", "tags": ["imp"], "scope_level": "global"}
    good_b = {"content": "Imported good line B", "created_at": "2024-05-06T07:08:09Z"}
    bad = [
        "{not json",
        json.dumps({"content": ""}),
        json.dumps({"tags": ["no content"]}),
        json.dumps({"content": "bad date", "created_at": "yesterday"}),
        json.dumps({"content": "bad month", "updated_at": "2024-13-45T00:00:00Z"}),
        json.dumps({"content": "unknown field", "colour": "red"}),
        json.dumps({"content": "project without path", "scope_level": "project"}),
        json.dumps({"content": "global with path", "scope_path": "/x"}),
        json.dumps({"content": "has a \u0000 NUL"}),
        json.dumps({"content": "   "}),
        json.dumps({"content": "bad type", "content_type": "opinion"}),
        json.dumps({"content": "bad confidence", "confidence": 1.5}),
        json.dumps({"content": "too many accesses", "access_count": 2**70}),
        json.dumps({"content": "deep", "metadata": {"a": json.loads("[" * 100 + "]" * 100)}}),
        "[1, 2]",
        "null",
    ]
    lines = [json.dumps(good_a), *bad[:8], "", "   ", *bad[8:], json.dumps(good_b)]
    first = 10
    before = census(shared.paths.db)
    res = shared.call("import", {"lines": lines, "first_line": first})

    assert (res["stored"], res["existing"], res["failed"]) == (2, 0, len(bad)), res
    reported = {r["line"]: r for r in res["lines"]}
    # Blank lines are not entries: not reported at all. Every other line is, by its number.
    blank = {first + i for i, line in enumerate(lines) if not line.strip()}
    assert set(reported) == {first + i for i in range(len(lines))} - blank
    assert [r["line"] for r in res["lines"]] == sorted(reported)
    assert reported[first]["status"] == "stored"
    assert reported[first + len(lines) - 1]["status"] == "stored"
    for r in reported.values():
        if r["status"] == "failed":
            assert r["id"] is None and r["error"], r
    # Exactly the two good lines landed, each with its vector and FTS row.
    after = census(shared.paths.db)
    after.assert_consistent()
    assert len(after.entries) == len(before.entries) + 2
    stored = {e["content"]: e for e in export_all(shared.call)}
    assert stored[good_a["content"]]["tags"] == ["imp"]
    assert stored[good_b["content"]]["created_at"] == "2024-05-06T07:08:09.000000Z"
    for line in bad:
        try:
            content = json.loads(line).get("content")
        except (ValueError, AttributeError):
            continue
        if content and content.strip():
            assert content not in stored, line
    # The same good lines again: recognised, not duplicated.
    again = shared.call("import", {"lines": [json.dumps(good_a), json.dumps(good_b)]})
    assert (again["stored"], again["existing"], again["failed"]) == (0, 2, 0)


def test_a_request_expecting_another_release_is_refused_not_run(unchanged: RunningDaemon) -> None:
    other = {"version": "0.0.0-other", "protocol": p.PROTOCOL_VERSION}
    this = {"version": __version__, "protocol": p.PROTOCOL_VERSION}
    with RawConn(unchanged.paths.socket) as conn:
        # A write from a client of another release does not run (`unchanged` checks the DB).
        conn.send(
            frame("remember", {"content": "not stored", "scope": "global"}, 5, enyal_expect=other)
        )
        err = error_of(conn.read())
        assert err["code"] == p.VERSION_MISMATCH
        assert err["data"]["version"] == __version__ and "enyal daemon restart" in err["message"]
        conn.send(frame("status", {}, 6, enyal_expect={**this, "protocol": 999}))
        assert error_of(conn.read())["code"] == p.VERSION_MISMATCH
        conn.send(frame("status", {}, 7, enyal_expect=this))
        assert result_of(conn.read())["version"] == __version__
        conn.send(frame("status", {}, 8, enyal_expect="0.1.0"))
        assert error_of(conn.read())["code"] == p.INVALID_REQUEST

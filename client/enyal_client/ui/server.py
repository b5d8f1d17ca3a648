"""The web view's server: a thin HTTP front of the daemon, safe by construction.

Every request passes one gate, in this order, and a refusal is a 403 that says why:

  Host     exactly 127.0.0.1:PORT or localhost:PORT. A page on another name that
           DNS-rebinds to 127.0.0.1 still sends its own name here.
  token    this run's random token (secrets.token_urlsafe(32)), compared in constant time:
           the HttpOnly, SameSite=Strict cookie the first visit to /?token=… sets, or an
           X-Enyal-Token header. The query string carries it on that first visit only.
  method   reads are GET; the writes (forget, restore, confirm) are POST only, with an
           Origin equal to this server's and a JSON body, which neither a form nor
           another site's page can send (SameSite=Strict keeps the cookie off cross-site
           requests besides). forget is never hard here: restore undoes everything the
           page can do.

It listens on 127.0.0.1 alone, sends no CORS header ever, and every answer carries a
strict Content-Security-Policy (scripts, styles and requests from this origin only, no
inline script, no framing), nosniff, no referrer and no-store. The page renders memory
text with textContent only: a memory is text an agent may have copied from anywhere.

The API is the daemon's own methods under /api/METHOD, as the CLI calls them: a read's
params come from the query string (a list field repeats its key), a write's from a JSON
body; both are checked against the method's wire Struct before anything is sent, and the
daemon's reply is passed on as it came. It sees nothing the daemon's user could not.
"""

from __future__ import annotations

import functools
import hmac
import http.server
import importlib.resources
import os
import secrets
import signal
import threading
import types
import typing
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import msgspec

from enyal_protocol import wire as p
from enyal_protocol.config import ConfigError, load
from enyal_protocol.paths import Paths, ensure_private_dir, resolve

from ..params import ParamsRefused, checked, plain
from ..pool import Pool
from ..transport import ClientError, RpcError, connect

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    # Another site cannot pull these answers in as a script or an image either.
    "Cross-Origin-Resource-Policy": "same-origin",
}

# The only params the page may send with each write it offers.
WRITE_PARAMS: dict[str, frozenset[str]] = {
    "forget": frozenset({"id"}),
    "restore": frozenset({"id", "version"}),
    "confirm": frozenset({"id"}),
}
# The methods the page offers. Whether each only reads (GET) or writes (POST) is the
# method table's fact (wire.Method.writes), not restated here.
OFFERED = WRITE_PARAMS.keys() | {
    "recall",
    "list",
    "get",
    "history",
    "edges",
    "traverse",
    "impact",
    "health",
    "review",
    "stats",
    "task_list",
    "hub.status",
}
READS = frozenset(name for name in OFFERED if not p.METHODS[name].writes)
# A write offered without its params fails here, at import, rather than open a door.
WRITES = {name: WRITE_PARAMS[name] for name in OFFERED if p.METHODS[name].writes}
MAX_BODY = 16 * 1024

STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}

# A meta refresh rather than a 303: a navigation this page starts is same-site, so the new
# SameSite=Strict cookie goes with it even when the first visit came from elsewhere (a
# link in a chat, the file --open writes), where a redirect chain would drop it.
SIGN_IN_PAGE = (
    b'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/">'
    # No icon of its own, or the browser asks for /favicon.ico (a 404) before moving on.
    b'<link rel="icon" href="data:,">'
    b'<title>Enyal</title><p><a href="/">Open Enyal</a></p>\n'
)

HTTP_STATUS = {
    p.NOT_FOUND: 404,
    p.INVALID_PARAMS: 400,
    p.INVALID_VALUE: 400,
    p.TOO_LARGE: 413,
    p.CONFLICT: 409,
    p.MODEL_UNAVAILABLE: 503,
    p.STORAGE_UNAVAILABLE: 503,
    p.SHUTTING_DOWN: 503,
}


class Refused(Exception):
    def __init__(self, status: int, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


# --- params ----------------------------------------------------------------------------


def _is_list(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    if origin is Annotated:
        return _is_list(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return any(_is_list(arg) for arg in typing.get_args(tp))
    return origin is list


def _checked(method: str, raw: dict[str, Any], strict: bool) -> Any:
    """The method's params Struct, or a 400 in the words the CLI would use."""
    try:
        return checked(method, raw, strict)
    except ParamsRefused as exc:
        struct = p.METHODS[method].params
        names = {f: f for f in struct.__struct_fields__}
        raise Refused(400, plain(struct, exc.reason, names), exc.code) from None


def query_params(method: str, query: str) -> dict[str, Any]:
    """A read's params from a query string: text converted by the field's type, a list
    field from its repeated key."""
    hints = typing.get_type_hints(p.METHODS[method].params, include_extras=True)
    raw: dict[str, Any] = {}
    for key, values in urllib.parse.parse_qs(query, keep_blank_values=True).items():
        if _is_list(hints.get(key)):
            raw[key] = values
        elif len(values) > 1:
            raise Refused(400, f"{key} is given {len(values)} times", p.INVALID_PARAMS)
        else:
            raw[key] = values[0]
    return raw


def body_params(method: str, body: bytes) -> dict[str, Any]:
    try:
        raw = msgspec.json.decode(body)
    except msgspec.DecodeError:
        raise Refused(400, "the body is not JSON", p.PARSE_ERROR) from None
    if not isinstance(raw, dict):
        raise Refused(400, "the body must be a JSON object", p.INVALID_PARAMS)
    extra = sorted(set(raw) - WRITES[method])
    if extra:
        allowed = ", ".join(sorted(WRITES[method]))
        raise Refused(
            400, f"{method} takes only {allowed} here (not {', '.join(extra)})", p.INVALID_PARAMS
        )
    return raw


# --- the server ------------------------------------------------------------------------


def _static(name: str) -> bytes:
    return (importlib.resources.files(__package__) / "static" / name).read_bytes()


class UiServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, daemon: Pool, defaults: dict[str, dict[str, Any]]) -> None:
        # Loopback only, never a wildcard: nothing off this machine can connect.
        super().__init__(("127.0.0.1", port), Handler)
        self.port: int = self.server_address[1]
        self.daemon = daemon
        self.defaults = defaults
        self.token = secrets.token_urlsafe(32)
        self.token_bytes = self.token.encode()
        self.hosts = frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})
        # Cookies are kept per host, not per port: two views at once need two names.
        self.cookie_name = f"enyal_ui_{self.port}"
        self.files = {path: (_static(name), kind) for path, (name, kind) in STATIC.items()}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def token_ok(self, candidate: str | None) -> bool:
        if not candidate:
            return False
        return hmac.compare_digest(candidate.encode("utf-8", "replace"), self.token_bytes)


class Handler(http.server.BaseHTTPRequestHandler):
    server: UiServer
    server_version = "enyal-ui"
    # A connection that sends nothing holds a thread no longer than this.
    timeout = 30

    def version_string(self) -> str:
        """The Server header without the Python version."""
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the first request line carries the token."""

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    # Refused through the same gate (with the same headers) instead of http.server's 501.
    do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def _handle(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        api = url.path.startswith("/api/")
        try:
            self._route(url, api)
        except Refused as exc:
            if api:
                error = {"error": {"code": exc.code, "message": exc.message}}
                self._send(exc.status, msgspec.json.encode(error), "application/json")
            else:
                self._send(exc.status, f"enyal ui: {exc.message}\n".encode(), "text/plain")

    def _route(self, url: urllib.parse.SplitResult, api: bool) -> None:
        host = self.headers.get_all("Host") or []
        if len(host) != 1 or host[0] not in self.server.hosts:
            raise Refused(403, "this server answers to 127.0.0.1 and localhost on its port only")
        if self.command not in ("GET", "POST"):
            raise Refused(403, "only GET and POST")
        if url.path == "/" and url.query and self.command == "GET":
            self._sign_in(url.query)
            return
        if not (
            self.server.token_ok(self.headers.get("X-Enyal-Token"))
            or self.server.token_ok(self._cookie())
        ):
            raise Refused(403, "no valid token: open the address `enyal ui` printed")
        if api:
            self._api(url.path.removeprefix("/api/"), url.query)
            return
        if url.path not in self.server.files or self.command != "GET":
            raise Refused(404, "not found")
        body, kind = self.server.files[url.path]
        self._send(200, body, kind)

    def _sign_in(self, query: str) -> None:
        tokens = urllib.parse.parse_qs(query).get("token", [])
        if len(tokens) != 1 or not self.server.token_ok(tokens[0]):
            raise Refused(403, "wrong token: open the address `enyal ui` printed")
        cookie = f"{self.server.cookie_name}={self.server.token}; HttpOnly; SameSite=Strict; Path=/"
        self._send(200, SIGN_IN_PAGE, "text/html; charset=utf-8", {"Set-Cookie": cookie})

    def _cookie(self) -> str | None:
        for header in self.headers.get_all("Cookie") or []:
            for part in header.split(";"):
                name, sep, value = part.strip().partition("=")
                if sep and name == self.server.cookie_name:
                    return value
        return None

    def _api(self, method: str, query: str) -> None:
        if method in WRITES:
            if self.command != "POST":
                raise Refused(403, f"{method} changes memory: POST only")
            origin = self.headers.get("Origin")
            if origin != f"http://{self.headers['Host']}":
                raise Refused(403, "a change must come from this page (Origin)")
            kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                raise Refused(403, "a change is sent as application/json")
            params = _checked(method, body_params(method, self._body()), strict=True)
        elif method in READS:
            if self.command != "GET":
                raise Refused(405, f"{method} is read with GET")
            raw = {**self.server.defaults.get(method, {}), **query_params(method, query)}
            params = _checked(method, raw, strict=False)
        else:
            raise Refused(404, f"no method {method!r} here", p.METHOD_NOT_FOUND)
        try:
            result = self.server.daemon.call_raw(method, params)
        except RpcError as exc:
            raise Refused(HTTP_STATUS.get(exc.code, 502), exc.message, exc.code) from None
        except (ClientError, OSError) as exc:
            raise Refused(503, str(exc)) from None
        self._send(200, result, "application/json")

    def _body(self) -> bytes:
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise Refused(411, "a Content-Length is required") from None
        if length > MAX_BODY or length < 0:
            raise Refused(413, f"the body may be {MAX_BODY} bytes at most")
        return self.rfile.read(length)

    def _send(
        self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        for name, value in {**SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


# --- running it --------------------------------------------------------------------------


def _opener_file(paths: Paths, server: UiServer) -> Path:
    """A page (0600, in the private runtime folder) that forwards to the URL: the browser
    is started with this file's name, so the token never shows in a process list."""
    ensure_private_dir(paths.runtime_dir)
    path = paths.runtime_dir / f"ui-{server.port}.html"
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(
            '<!doctype html><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="0; url={server.url}"><title>Enyal</title>\n'
        )
    return path


def run(
    port: int,
    announce: Callable[[str], None],
    *,
    open_browser: bool = False,
    paths: Paths | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, then stop cleanly: the listening socket closed, the
    daemon connections closed, the opener file removed."""
    paths = paths or resolve()
    try:
        settings = load(paths)
    except ConfigError as exc:
        raise ClientError(str(exc)) from None
    daemon = Pool(functools.partial(connect, paths, retry=False))
    try:
        # Before a URL is printed: the daemon answers (started if need be), of this release.
        daemon.call_raw("status", {})
    except BaseException:
        daemon.close()
        raise
    # As `enyal recall` does: the floor leaves out what neither meaning nor words tie to
    # the query (the page can ask for everything with min_relevance=0); project scopes
    # resolve from where `enyal ui` was started.
    cwd = os.getcwd()
    defaults: dict[str, dict[str, Any]] = {
        "recall": {
            **settings.recall_floors(),
            "cwd": cwd,
        },
        "list": {"cwd": cwd},
    }
    try:
        server = UiServer(port, daemon, defaults)
    except OSError as exc:
        daemon.close()
        raise ClientError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    opener: Path | None = None
    thread = threading.Thread(target=server.serve_forever, name="enyal-ui", daemon=True)
    thread.start()
    try:
        announce(server.url)
        if open_browser:
            import webbrowser

            opener = _opener_file(paths, server)
            webbrowser.open(opener.as_uri())
        while not stop.wait(0.5):
            pass
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
        daemon.close()
        if opener is not None:
            opener.unlink(missing_ok=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)

"""`enyal ui`, the local web view: the real `enyal ui` process in front of a real daemon.

The gate is tested refusal by refusal over raw HTTP (http.client, so the Host, Origin and
Cookie headers are exactly what a test writes), each followed by a look at the daemon to
see that nothing changed. Then a real browser: Playwright driving Debian's Chromium
headless (scripts/test installs the `chromium` package; Playwright's own browser
download is never used). A missing /usr/bin/chromium fails that test rather than
skipping it, as a missing nvim fails the Neovim tests.

The browser test saves screenshots of each view to tests/artifacts/ (git-ignored) and
prints where.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import BIN, DaemonProc, wait_for

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = "/usr/bin/chromium"
# The machine's network is closed: without these Chromium keeps trying to reach Google.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
URL_LINE = re.compile(r"enyal ui: (http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{43}))\n")


@dataclass
class Ui:
    proc: subprocess.Popen[str]
    url: str
    port: int
    token: str

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        return f"http://{self.host}"

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str]:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(30)
        err = self.proc.stderr.read() if self.proc.stderr else ""
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
        return code, err


def start_ui(*args: str, env: dict[str, str] | None = None) -> Ui:
    proc = subprocess.Popen(
        [str(BIN / "enyal"), "ui", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    line = proc.stdout.readline() if ready else ""
    m = URL_LINE.fullmatch(line)
    if m is None:
        proc.kill()
        proc.wait()
        err = proc.stderr.read() if proc.stderr else ""
        raise AssertionError(f"enyal ui printed {line!r}; stderr: {err}")
    return Ui(proc, m[1], int(m[2]), m[3])


@pytest.fixture
def ui(daemon: DaemonProc) -> Iterator[Ui]:
    u = start_ui("--no-open")
    yield u
    code, err = u.stop()
    assert code == 0, err


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def error(self) -> str:
        message: str = self.json()["error"]["message"]
        return message


def send(
    ui: Ui,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    *,
    host: str | None = "",
) -> Answer:
    """One request with exactly these headers: Host is this server's unless `host` says
    otherwise (None: no Host header at all)."""
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host or ui.host)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        r = conn.getresponse()
        return Answer(r.status, r.headers, r.read())
    finally:
        conn.close()


def signed_in(ui: Ui) -> dict[str, str]:
    return {"Cookie": f"enyal_ui_{ui.port}={ui.token}"}


def post(ui: Ui, method: str, params: dict[str, Any], **headers: str) -> Answer:
    base = {**signed_in(ui), "Origin": ui.origin, "Content-Type": "application/json"}
    return send(ui, "POST", f"/api/{method}", {**base, **headers}, json.dumps(params).encode())


@dataclass
class Store:
    lint: str  # the memory a search for linters finds
    fmt: str  # relates_to lint
    ci: str  # depends_on lint
    old: str  # superseded by lint


def remember(daemon: DaemonProc, content: str, kind: str, **extra: Any) -> str:
    r = daemon.call(
        "remember",
        {"content": content, "content_type": kind, "scope": "global", "dedup": "off", **extra},
    )
    entry_id: str = r["id"]
    return entry_id


@pytest.fixture
def store(daemon: DaemonProc) -> Store:
    old = remember(daemon, "We linted with flake8 and isort until 2024", "fact")
    lint = remember(
        daemon, "Lint Python with ruff check, never flake8", "convention", supersedes=[old]
    )
    fmt = remember(daemon, "Format Python code with ruff format", "convention", relates_to=[lint])
    ci = remember(daemon, "The CI pipeline must pass before a merge", "fact", depends_on=[lint])
    return Store(lint=lint, fmt=fmt, ci=ci, old=old)


def unchanged(daemon: DaemonProc, entry_id: str) -> None:
    entry = daemon.call("get", {"id": entry_id})
    assert not entry["is_deprecated"]
    assert entry["confirm_count"] == 0
    assert [v["change_type"] for v in daemon.call("history", {"id": entry_id})["versions"]] == [
        "created"
    ]


# --- the gate ----------------------------------------------------------------------------


def test_without_a_token_nothing_is_served(ui: Ui, store: Store) -> None:
    for path in ("/", "/app.js", "/style.css", "/api/stats", f"/api/get?id={store.lint}"):
        r = send(ui, "GET", path)
        assert r.status == 403, path
        assert b"Lint Python" not in r.body
    assert "token" in send(ui, "GET", "/api/stats").error()


def test_a_wrong_token_is_refused_wherever_it_is_given(ui: Ui, store: Store) -> None:
    wrong = ui.token[:-1] + ("A" if ui.token[-1] != "A" else "B")
    r = send(ui, "GET", f"/?token={wrong}")
    assert r.status == 403 and r.headers.get("Set-Cookie") is None
    assert send(ui, "GET", "/?token=").status == 403
    assert send(ui, "GET", f"/?token={ui.token}&token={wrong}").status == 403
    for headers in (
        {"Cookie": f"enyal_ui_{ui.port}={wrong}"},
        {"Cookie": f"enyal_ui_{ui.port + 1}={ui.token}"},  # another view's cookie name
        {"X-Enyal-Token": wrong},
        {"X-Enyal-Token": "é" * 43},
    ):
        assert send(ui, "GET", "/api/stats", headers).status == 403, headers
    # The query string signs in on the first visit to / only; it is no key to the API.
    assert send(ui, "GET", f"/api/stats?token={ui.token}").status == 403


def test_the_token_signs_in_with_a_strict_http_only_cookie(ui: Ui) -> None:
    r = send(ui, "GET", f"/?token={ui.token}")
    assert r.status == 200
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith(f"enyal_ui_{ui.port}={ui.token};")
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= {x.strip() for x in cookie.split(";")}
    # The page moves on to / at once, leaving the token out of the address bar.
    assert b'http-equiv="refresh" content="0; url=/"' in r.body
    page = send(ui, "GET", "/", signed_in(ui))
    assert page.status == 200 and b'<script src="/app.js"' in page.body
    assert send(ui, "GET", "/api/stats", signed_in(ui)).json()["total"] == 0
    assert send(ui, "GET", "/api/stats", {"X-Enyal-Token": ui.token}).status == 200


def test_the_page_reads_the_hub_status(ui: Ui) -> None:
    """The health view's team-hub line reads hub.status (read-only, so a GET)."""
    r = send(ui, "GET", "/api/hub.status", signed_in(ui))
    assert r.status == 200 and r.json()["configured"] is False
    assert b"hub.status" in send(ui, "GET", "/app.js", signed_in(ui)).body


def test_another_host_name_is_refused_even_with_the_token(ui: Ui) -> None:
    for host in (
        f"evil.example:{ui.port}",  # DNS rebinding: the attacker's name, our address
        f"127.0.0.1:{ui.port + 1}",
        "127.0.0.1",
        "localhost",
        f"[::1]:{ui.port}",
        f"127.0.0.1:{ui.port}.evil.example",
    ):
        r = send(ui, "GET", "/api/stats", signed_in(ui), host=host)
        assert r.status == 403, host
        assert "127.0.0.1 and localhost" in r.error()
    assert send(ui, "GET", "/api/stats", signed_in(ui), host=None).status == 403
    r = send(ui, "GET", f"/?token={ui.token}", host=f"evil.example:{ui.port}")
    assert r.status == 403 and r.headers.get("Set-Cookie") is None
    assert send(ui, "GET", "/api/stats", signed_in(ui), host=f"localhost:{ui.port}").status == 200


def test_a_cross_origin_post_changes_nothing(ui: Ui, daemon: DaemonProc, store: Store) -> None:
    for origin in ("http://evil.example", "null", f"http://localhost:{ui.port}", ""):
        r = post(ui, "forget", {"id": store.lint}, Origin=origin)
        assert r.status == 403, origin
        assert "Origin" in r.error()
        assert post(ui, "confirm", {"id": store.lint}, Origin=origin).status == 403
    no_origin = {**signed_in(ui), "Content-Type": "application/json"}
    body = json.dumps({"id": store.lint}).encode()
    assert send(ui, "POST", "/api/forget", no_origin, body).status == 403
    # What an HTML form can send, even from this very origin: not a change.
    form = post(ui, "forget", {"id": store.lint}, **{"Content-Type": "text/plain"})
    assert form.status == 403
    # The right origin without the token.
    headers = {"Origin": ui.origin, "Content-Type": "application/json"}
    assert send(ui, "POST", "/api/forget", headers, body).status == 403
    unchanged(daemon, store.lint)


def test_a_get_cannot_change_anything(ui: Ui, daemon: DaemonProc, store: Store) -> None:
    for path in (
        f"/api/forget?id={store.lint}",
        f"/api/confirm?id={store.lint}",
        f"/api/restore?id={store.lint}",
    ):
        r = send(ui, "GET", path, signed_in(ui))
        assert r.status == 403, path
        assert "POST only" in r.error()
    unchanged(daemon, store.lint)


def test_other_http_methods_are_refused(ui: Ui, daemon: DaemonProc, store: Store) -> None:
    for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):
        r = send(ui, method, "/api/forget", {**signed_in(ui), "Origin": ui.origin})
        assert r.status == 403, method
        assert not [h for h in r.headers if h.lower().startswith("access-control-")]
    unchanged(daemon, store.lint)


def test_the_page_offers_no_other_method(ui: Ui, daemon: DaemonProc, store: Store) -> None:
    for method in ("shutdown", "remember", "update", "import", "export", "link", "scan"):
        assert post(ui, method, {}).status == 404, method
        assert send(ui, "GET", f"/api/{method}", signed_in(ui)).status == 404
    # forget here only ever deprecates: restore undoes all the page can do.
    r = post(ui, "forget", {"id": store.lint, "hard": True})
    assert r.status == 400 and "only id" in r.error()
    unchanged(daemon, store.lint)
    assert daemon.alive()


def test_same_origin_changes_go_through(ui: Ui, daemon: DaemonProc, store: Store) -> None:
    r = post(ui, "forget", {"id": store.fmt})
    assert r.status == 200 and r.json() == {"id": store.fmt, "action": "deprecated"}
    assert daemon.call("get", {"id": store.fmt})["is_deprecated"]
    assert post(ui, "restore", {"id": store.fmt}).json()["is_deprecated"] is False
    assert post(ui, "confirm", {"id": store.fmt}).json()["confirm_count"] == 1
    # localhost is as good a name as 127.0.0.1, with its own origin.
    r = send(
        ui,
        "POST",
        "/api/confirm",
        {
            **signed_in(ui),
            "Origin": f"http://localhost:{ui.port}",
            "Content-Type": "application/json",
        },
        json.dumps({"id": store.fmt}).encode(),
        host=f"localhost:{ui.port}",
    )
    assert r.status == 200 and r.json()["confirm_count"] == 2


def test_every_answer_carries_the_security_headers(ui: Ui, store: Store) -> None:
    answers = {
        "page": send(ui, "GET", "/", signed_in(ui)),
        "script": send(ui, "GET", "/app.js", signed_in(ui)),
        "api": send(ui, "GET", f"/api/get?id={store.lint}", signed_in(ui)),
        "sign-in": send(ui, "GET", f"/?token={ui.token}"),
        "refused": send(ui, "GET", "/api/stats"),
        "wrong host": send(ui, "GET", "/", signed_in(ui), host="evil.example"),
        "missing": send(ui, "GET", "/nothing", signed_in(ui)),
        "preflight": send(
            ui,
            "OPTIONS",
            "/api/forget",
            {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
        ),
    }
    for name, r in answers.items():
        assert r.headers["Content-Security-Policy"] == CSP, name
        assert r.headers["X-Content-Type-Options"] == "nosniff", name
        assert r.headers["Referrer-Policy"] == "no-referrer", name
        assert r.headers["Cache-Control"] == "no-store", name
        assert not [h for h in r.headers if h.lower().startswith("access-control-")], name
    assert answers["page"].headers["Content-Type"] == "text/html; charset=utf-8"
    assert answers["script"].headers["Content-Type"].startswith("text/javascript")
    assert answers["api"].headers["Content-Type"] == "application/json"
    assert answers["missing"].status == 404


def test_the_page_has_no_inline_script_or_style(ui: Ui) -> None:
    """What the CSP would block must not be needed: the page works under it."""
    page = send(ui, "GET", "/", signed_in(ui)).body.decode()
    assert re.findall(r"<script\b[^>]*>", page) == ['<script src="/app.js" defer>']
    assert "<style" not in page and "style=" not in page and " on" not in page.lower()
    script = send(ui, "GET", "/app.js", signed_in(ui)).body.decode()
    assert "innerHTML" not in script and "eval(" not in script


def test_it_listens_on_127_0_0_1_alone(ui: Ui) -> None:
    with socket.create_connection(("127.0.0.1", ui.port), timeout=10):
        pass
    # Bound to a wildcard it would answer on every local address, 127.0.0.2 among them.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.2", ui.port), timeout=10).close()


def test_bad_params_and_daemon_errors(ui: Ui, store: Store) -> None:
    def get(path: str) -> Answer:
        return send(ui, "GET", path, signed_in(ui))

    r = get("/api/recall?query=lint&limit=500")
    assert (r.status, r.error()) == (400, "limit must be 1–100")
    r = get("/api/recall?query=lint&colour=blue")
    assert r.status == 400 and "colour" in r.error()
    assert get("/api/recall?query=lint&limit=2&limit=3").status == 400
    assert get("/api/recall?query=lint&scope=galaxy").status == 400
    assert get("/api/recall").error() == "query is required"
    r = get("/api/get?id=0123456789abcdef")
    assert r.status == 404 and r.json()["error"]["code"] == -32001
    assert "0123456789abcdef" in r.error()
    r = get("/api/traverse")  # neither id nor query: the daemon's own refusal
    assert r.status == 400 and r.json()["error"]["code"] == -32002
    assert post(ui, "forget", {"id": ""}).status == 400
    r = send(
        ui,
        "POST",
        "/api/forget",
        {**signed_in(ui), "Origin": ui.origin, "Content-Type": "application/json"},
        b"{not json",
    )
    assert (r.status, r.error()) == (400, "the body is not JSON")
    big = json.dumps({"id": "x" * 20_000}).encode()
    r = send(
        ui,
        "POST",
        "/api/forget",
        {**signed_in(ui), "Origin": ui.origin, "Content-Type": "application/json"},
        big,
    )
    assert r.status == 413


def test_reads_map_to_the_daemon_methods(ui: Ui, daemon: DaemonProc, store: Store) -> None:
    def get(path: str) -> Any:
        r = send(ui, "GET", path, signed_in(ui))
        assert r.status == 200, r.body
        return r.json()

    hits = get("/api/recall?query=which+linter+do+we+use&limit=3")["results"]
    assert hits[0]["id"] == store.lint
    for part in ("score", "semantic", "keyword", "recency", "effective_confidence"):
        assert isinstance(hits[0][part], float)
    kinds = get("/api/list?content_type=convention")["entries"]
    assert {e["id"] for e in kinds} == {store.lint, store.fmt}
    walk = get(f"/api/traverse?id={store.lint}&direction=both&edge_types=depends_on")
    assert [n["entry"]["id"] for n in walk["nodes"]] == [store.ci]
    assert get(f"/api/history?id={store.lint}")["supersedes"][0]["id"] == store.old
    assert len(get(f"/api/edges?id={store.lint}")["edges"]) == 3
    assert get("/api/health?stale_days=30") == daemon.call("health", {"stale_days": 30})
    assert get("/api/review?kind=orphan")["orphan"] == []
    assert get("/api/stats")["total_edges"] == 3


# --- the command -------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_enyal_ui_serves_until_a_signal_then_stops_cleanly(daemon: DaemonProc, sig: int) -> None:
    u = start_ui("--no-open")
    assert send(u, "GET", "/api/stats", signed_in(u)).status == 200
    code, err = u.stop(sig)
    assert code == 0, err
    assert "Traceback" not in err and err.rstrip().endswith("enyal ui: stopped")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", u.port), timeout=10).close()
    assert daemon.alive()


def test_enyal_ui_json_and_a_chosen_port(daemon: DaemonProc) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [str(BIN / "enyal"), "ui", "--json", "--no-open", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    line = proc.stdout.readline() if ready else ""
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    url = json.loads(line)["url"]
    assert re.fullmatch(rf"http://127\.0\.0\.1:{port}/\?token=[A-Za-z0-9_-]{{43}}", url)


def test_enyal_ui_on_a_busy_port_says_so(daemon: DaemonProc) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        p = subprocess.run(
            [str(BIN / "enyal"), "ui", "--no-open", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert p.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in p.stderr


def test_open_hands_the_browser_a_private_file_not_the_token(
    daemon: DaemonProc, tmp_path: Path
) -> None:
    """A process's arguments are visible to every user of the machine: the browser gets
    the name of a 0600 file in the private runtime folder, which forwards to the URL."""
    seen = tmp_path / "browser-args"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {seen}\n')
    browser.chmod(0o755)
    u = start_ui("--open", env={**os.environ, "BROWSER": str(browser)})
    try:
        wait_for(seen.exists, what="the browser to be started")
        args = seen.read_text()
        assert u.token not in args
        opener = Path(args.strip().removeprefix("file://"))
        assert opener.parent == daemon.paths.runtime_dir
        assert stat.S_IMODE(opener.stat().st_mode) == 0o600
        assert f'content="0; url={u.url}"' in opener.read_text()
    finally:
        code, err = u.stop()
    assert code == 0, err
    assert not opener.exists()


# --- a real browser ----------------------------------------------------------------------


def _chromium() -> str:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's `chromium` package "
            "(scripts/test does with apt-get when run as root)"
        )
    return CHROMIUM


def test_in_a_real_browser(ui: Ui, daemon: DaemonProc, store: Store) -> None:
    from playwright.sync_api import expect, sync_playwright

    executable = _chromium()
    expect.set_options(timeout=60_000)  # two cores shared with other test runs
    ARTIFACTS.mkdir(exist_ok=True)
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(60_000)
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            # The console names no URL for a failed load; this says which one it was.
            page.on(
                "response",
                lambda r: (
                    problems.append(f"{r.status} {r.request.method} {r.url}")
                    if r.status >= 400
                    else None
                ),
            )

            # Signing in drops the token from the address.
            page.goto(ui.url)
            page.wait_for_url(f"{ui.origin}/")
            cookies = {c["name"]: c for c in page.context.cookies()}
            cookie = cookies[f"enyal_ui_{ui.port}"]
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it

            # Search shows the expected memory first, with its score and the parts.
            page.get_by_label("query").fill("which linter do we use")
            page.get_by_role("button", name="Search").click()
            first = page.locator("#results article.hit").first
            expect(first).to_have_attribute("data-id", store.lint)
            expect(first.locator(".content")).to_have_text(
                "Lint Python with ruff check, never flake8"
            )
            for part in ("semantic", "keyword", "recency", "confidence"):
                expect(first.locator(f".p-{part} .num")).to_have_text(re.compile(r"\d\.\d\d"))
            expect(first.locator(".badge")).to_have_text("convention")
            page.screenshot(path=str(ARTIFACTS / "ui-search.png"), full_page=True)

            # Its page: content, links to the others, history.
            first.locator(".content").click()
            expect(page.locator("pre.memory")).to_have_text(
                "Lint Python with ruff check, never flake8"
            )
            links = page.locator("ul.edges li")
            expect(links).to_have_count(3)
            expect(links.filter(has_text="Format Python code with ruff format")).to_have_count(1)
            expect(page.locator("table.history tr")).to_have_count(1)

            # Forget and restore through the buttons (a same-origin POST from the page).
            page.get_by_role("button", name="Forget").click()
            expect(page.get_by_role("button", name="Restore")).to_be_visible()
            assert daemon.call("get", {"id": store.lint})["is_deprecated"]
            page.get_by_role("button", name="Restore").click()
            expect(page.get_by_role("button", name="Forget")).to_be_visible()
            assert not daemon.call("get", {"id": store.lint})["is_deprecated"]

            # The graph around it: every memory of the walk drawn, every link between them.
            page.get_by_role("link", name="Graph around it").click()
            graph = page.locator("svg#graph")
            expect(graph).to_have_attribute("data-node-count", "4")
            expect(graph.locator("g.node")).to_have_count(4)
            expect(graph.locator("line.edge")).to_have_count(3)
            drawn = {graph.locator("g.node").nth(i).get_attribute("data-id") for i in range(4)}
            assert drawn == {store.lint, store.fmt, store.ci, store.old}
            graph.locator(f'g.node[data-id="{store.ci}"]').click()
            expect(page.locator(".node-detail")).to_contain_text(
                "The CI pipeline must pass before a merge"
            )
            page.screenshot(path=str(ARTIFACTS / "ui-graph.png"), full_page=True)

            # Tasks: the ones not done, in progress first; a done one is not listed.
            made = [
                daemon.call("task_add", {"content": c, "scope": "global"})["id"]
                for c in ("Write the release notes", "Tag the release", "Old chore")
            ]
            daemon.call("task_update", {"id": made[1], "status": "in_progress"})
            daemon.call("task_update", {"id": made[2], "status": "done"})
            page.get_by_role("link", name="Tasks").click()
            rows = page.locator("ul.tasks li")
            expect(rows).to_have_count(2)
            assert rows.nth(0).get_attribute("data-id") == made[1]
            assert rows.nth(0).get_attribute("data-status") == "in_progress"
            expect(rows.nth(1)).to_contain_text("Write the release notes")

            # Health: the daemon's score.
            page.get_by_role("link", name="Health").click()
            health = daemon.call("health", {})
            expect(page.locator("#health-score")).to_have_text(f"{health['health_score']:.2f}")
            page.screenshot(path=str(ARTIFACTS / "ui-health.png"), full_page=True)
        finally:
            browser.close()
    print(f"screenshots: {ARTIFACTS}/ui-search.png, ui-graph.png, ui-health.png", file=sys.stderr)
    # A CSP violation (an inline script or style) is a console error.
    assert problems == []


def test_the_front_end_ships_in_a_regular_install() -> None:
    """The tests run an editable install, which serves static/ from the tree whatever
    pyproject says; a wheel carries only what package-data names."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "ui/static/*" in config["tool"]["setuptools"]["package-data"]["enyal_client"]
    static = ROOT / "client" / "enyal_client" / "ui" / "static"
    assert sorted(f.name for f in static.iterdir()) == ["app.js", "index.html", "style.css"]

"""Secrets never stored (issue 10): every write path redacts before anything reaches the
database, its text index, the vectors, the history, the analytics log or the logs;
`enyal scan --fix` cleans what was stored before; config.toml adds rules and an
allow-list, and can turn redaction off (never the default; doctor warns).

The proof is on disk: after the daemon stops, no file under the home holds a secret
or any long piece of it (the text index keeps words, lowercased, split at
punctuation). The same check finds them when redaction is off, so it can fail."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, TextIO

import pytest

from conftest import DaemonProc, run_cli, start_daemon, stop_daemon_of_home
from enyal_client import transport
from enyal_protocol import paths as enyal_paths
from test_mcp import run, shim

DATA = Path(__file__).parent / "data" / "secrets"
POSITIVES = [json.loads(x) for x in (DATA / "positives.jsonl").read_text().splitlines()]
BENIGN = [json.loads(x) for x in (DATA / "benign.jsonl").read_text().splitlines()]
GHP = "ghp_" + "R7vQ2xL9mK4pT8wZ3nB6cY1dF5gH0jS2aE7u"  # a made-up classic GitHub token
STRIPE = "sk_live_" + "51Hq7bC2eR9tY4uI8oP3aS6dF1gH5jK0lZ"  # a made-up Stripe key


def secrets_of(rows: list[dict[str, Any]]) -> list[str]:
    """A corpus row names its secret, or its several secrets (an id and its key)."""
    return [
        s for r in rows for s in (r["secret"] if isinstance(r["secret"], list) else [r["secret"]])
    ]


def pieces(secret: str) -> set[bytes]:
    """What of a secret could be on disk: itself, and its runs of letters and digits of
    8 or more (as an FTS index would keep them), as written and lowercased."""
    runs = [r for r in re.split(r"[^0-9A-Za-z]+", secret) if len(r) >= 8]
    return {x.encode() for s in [secret, *runs] for x in (s, s.lower())}


def leaks(home: Path, secrets: list[str]) -> dict[str, list[str]]:
    """secret -> the files under `home` holding it or a long piece of it."""
    files = [p for p in home.rglob("*") if p.is_file() and not p.is_socket()]
    blobs = {p: p.read_bytes() for p in files}
    out: dict[str, list[str]] = {}
    for secret in secrets:
        where = [p.name for p, b in blobs.items() if any(x in b for x in pieces(secret))]
        if where:
            out[secret] = where
    return out


def stop(d: DaemonProc) -> None:
    d.stop()
    if d.proc.stderr:
        d.proc.stderr.close()


def call(conn: transport.Connection, method: str, **params: Any) -> Any:
    if method == "remember":
        params.setdefault("scope", "global")
    return conn.call(method, params)


def test_no_secret_reaches_the_disk_on_any_write_path(home: Path, autostarted: None) -> None:
    conn = transport.connect(enyal_paths.resolve(), autostart=True)  # logs to a file
    try:
        for row in POSITIVES:
            r = call(conn, "remember", content=row["text"], tags=["corpus"])
            assert r["redacted"], row["text"]
            assert "[REDACTED:" in r["entry"]["content"]
        # tags, metadata and source_ref are scanned like content
        r = call(
            conn,
            "remember",
            content="The deploy bot posts to the release channel.",
            tags=[f"token={GHP}"],
            metadata={"stripe": {"key": STRIPE}, "password": "hunter2-but-longer"},
            source_type="conversation",
            source_ref=f"https://deploy:{STRIPE}@ci.example.com/hooks",
        )
        assert r["redacted"] == {"github-token": 1, "password": 1, "stripe-key": 2}
        entry_id = r["id"]
        assert r["entry"]["metadata"]["password"] == "[REDACTED:password]"
        # update, a link's metadata, an import line with history, and a recall query
        u = call(conn, "update", id=entry_id, content=f"The bot authenticates with {GHP}.")
        assert u["redacted"] == {"github-token": 1} and GHP not in u["content"]
        other = call(conn, "remember", content="Releases are cut from main on Tuesdays.")
        call(
            conn,
            "link",
            source_id=entry_id,
            target_id=other["id"],
            edge_type="relates_to",
            metadata={"t": GHP},
        )
        line = {
            "content": f"export STRIPE_KEY={STRIPE}",
            "versions": [
                {
                    "version": 1,
                    "change_type": "created",
                    "changed_at": "2026-01-01T00:00:00Z",
                    "content": f"key {STRIPE}",
                    "content_type": "fact",
                    "confidence": 1.0,
                    "tags": [],
                    "metadata": {},
                    "is_deprecated": False,
                }
            ],
        }
        imported = call(conn, "import", lines=[json.dumps(line)])
        assert imported["stored"] == 1 and imported["redacted"] == {"stripe-key": 2}
        call(conn, "recall", query=f"where is {GHP} used", min_relevance=0.0)
        found = call(conn, "recall", query="github token", min_relevance=0.0)["results"]
        assert found and all(GHP not in h["content"] for h in found)
        for row in BENIGN:
            r = call(conn, "remember", content=row["text"])
            assert r["redacted"] == {} and r["entry"]["content"] == row["text"], row["why"]
    finally:
        conn.close()
    stop_daemon_of_home()  # flushes the analytics log, checkpoints and closes the WAL
    assert (home / "logs").is_dir()
    secrets = [*secrets_of(POSITIVES), GHP, STRIPE, "hunter2-but-longer"]
    assert leaks(home, secrets) == {}


def test_scan_finds_and_fixes_what_was_stored_verbatim(home: Path) -> None:
    env = {**os.environ, "ENYAL_REDACT_SECRETS": "false"}
    d = start_daemon(env)
    planted = POSITIVES[:12]
    try:
        assert d.call("status")["redacts_secrets"] is False
        ids = [d.call("remember", {"content": r["text"], "scope": "global"})["id"] for r in planted]
        d.call("update", {"id": ids[0], "content": "The access key was rotated; ask ops."})
        d.call(
            "remember",
            {"content": "Deploys run from CI.", "tags": [f"token={GHP}"], "scope": "global"},
        )
        d.call("recall", {"query": f"what uses {STRIPE}", "min_relevance": 0.0})
    finally:
        stop(d)
    secrets = [*secrets_of(planted), GHP, STRIPE]
    assert set(leaks(home, secrets)) == set(secrets), "the control: stored verbatim when off"

    doctor = run_cli("doctor", "--json", env=env)
    (warned,) = [c for c in doctor.json()["checks"] if c["name"] == "secrets"]
    assert warned["status"] == "warn" and "verbatim" in warned["detail"]

    d = start_daemon()
    try:
        before = run_cli("export")
        seen = run_cli("scan", "--json")
        assert seen.code == 0, seen.err
        report = seen.json()
        # the first entry's content is clean now, but its history still holds the key
        assert report["affected"] == 13 and report["fixed"] == 0 and report["queries"] >= 1
        first = next(h for h in report["entries"] if h["id"] == ids[0])
        assert first["fields"] == ["history"]
        after = run_cli("export").out.splitlines()[1:]  # the header says when: left out
        assert after == before.out.splitlines()[1:], "a scan without --fix changes nothing"
        text = run_cli("scan").out
        assert "nothing changed" in text and "13 hold secrets" in text

        fixed = run_cli("scan", "--fix", "--json").json()
        assert fixed["fixed"] == 13
        history = run_cli("history", ids[1], "--json").json()["versions"]
        assert [v["change_type"] for v in history] == ["updated", "created"]
        assert all("[REDACTED:" in v["content"] for v in history)
        assert run_cli("scan", "--json").json()["affected"] == 0
        query = planted[1]["text"]
        for secret in secrets_of(planted[1:2]):
            query = query.replace(secret, "")
        hits = run_cli("recall", query, "--json").json()["results"]
        assert hits[0]["id"] == ids[1], "re-embedded from the redacted text, still found"
    finally:
        stop(d)
    assert leaks(home, secrets) == {}


def test_config_adds_rules_and_an_allow_list(home: Path, autostarted: None) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        "[secrets]\n"
        f'allow = ["{STRIPE}"]\n'
        'patterns = [{ kind = "acme-key", pattern = "acme_[0-9a-f]{16}", keywords = ["acme_"] }]\n'
    )
    r = run_cli("remember", f"acme_0123456789abcdef and {STRIPE} are test keys", "--json")
    assert r.code == 0, r.err
    made = r.json()
    assert made["redacted"] == {"acme-key": 1}
    assert STRIPE in made["entry"]["content"] and "acme_0123" not in made["entry"]["content"]
    assert (
        "redacted 1 secret before storing (acme-key)"
        in run_cli("remember", "acme_fedcba9876543210 for staging").out
    )


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[secrets]\nredact = "maybe"\n', "must be true or false"),
        ('[secrets]\npatterns = [{ kind = "Bad Kind", pattern = "x" }]\n', "kind must be"),
        ('[secrets]\npatterns = [{ kind = "k", pattern = "(" }]\n', "does not compile"),
        ('[secrets]\npatterns = [{ kind = "k", pattern = "a*" }]\n', "matches empty text"),
        ("[secrets]\nallow = [1]\n", "list of non-empty strings"),
    ],
)
def test_bad_secret_config_is_refused_by_name(home: Path, toml: str, message: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(toml)
    shown = run_cli("config", "show")
    assert shown.code != 0 and message in shown.err and "secrets." in shown.err
    with pytest.raises(RuntimeError, match=re.escape(message)):
        start_daemon(timeout=20)


def test_the_mcp_shim_reports_what_it_redacted(tmp_path: Path, autostarted: None) -> None:
    async def body(stderr: TextIO) -> None:
        async with shim("auto", tmp_path, stderr) as s:
            made = await s.call("enyal_remember", {"content": f"CI pushes with {GHP} nightly."})
            assert made["redacted"] == {"github-token": 1}
            assert made["entry"]["content"] == "CI pushes with [REDACTED:github-token] nightly."
            changed = await s.call(
                "enyal_update", {"id": made["id"], "metadata": {"api_key": STRIPE}}
            )
            assert changed["redacted"] == {"api-key": 1}  # named by its key

    with (tmp_path / "enyal-mcp.stderr").open("w+") as stderr:
        run(body, stderr)

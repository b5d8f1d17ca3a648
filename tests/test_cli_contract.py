"""The CLI as people type it (issues 8 and 9): plain messages and exit 2 for values the
protocol refuses, choices and bounds taken from the protocol's own types, a relevance
floor on recall, short output for long memories, honest "nothing changed" replies,
both spellings of --direction, the lossless and the Markdown export, and backups."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import run_cli
from enyal_client.commands import contract as ct
from enyal_protocol import wire as p

pytestmark = pytest.mark.usefixtures("autostarted")


def remember(text: str, *extra: str) -> str:
    r = run_cli("remember", text, "--scope", "global", *extra, "--json")
    assert r.code == 0, r.err
    return str(r.json()["id"])


def nothing_started(home: Path) -> list[str]:
    """What a command left in ENYAL_HOME: a refused one must leave nothing (no socket, no
    pid file, no database, no log: no daemon was started to refuse it)."""
    return sorted(str(f.relative_to(home)) for f in home.rglob("*")) if home.exists() else []


# Refused by the client itself, from the protocol's types or the verb's own rules: before
# any daemon is reached, so none is started just to say no (issue 26.4).
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["remember", ""], "content must not be empty"),
        (["remember", "x", "--tag", "t" * 65], "each --tag is too long (at most 64 characters)"),
        (["traverse", "abcd", "--depth", "9"], "--depth: must be 1–4"),
        (["recall", "x", "--limit", "101"], "--limit: must be 1–100"),
        (["remember", "x", "--confidence", "2"], "--confidence: must be 0–1"),
        (["recall", ""], "query must not be empty"),
        (["recall", "", "--json"], "query must not be empty"),
        (["history", "x" * 65], "ID is too long (at most 64 characters)"),
        (["review", "--limit", "0"], "--limit: must be 1–100"),
        (["remember", "x", "--ttl", "soon"], "--ttl is not in the expected form: Time to live"),
        # Too many digits: the message says what the bound is, not just "not in the form".
        (["remember", "x", "--ttl", "99999999999d"], "at most 36500 days"),
        (["remember", "x", "--importance", "6"], "--importance: must be 1–5"),
        # A bound is a number as written, never in exponent form ("1–2.14748e+09").
        (["restore", "abcd", "--version", "0"], f"--version: must be 1–{2**31}"),
        (["recall"], "give a query"),
        (["recall", "x", "--path", "/a.py", "--tag", "t"], "--path"),
        (["export", "--project", "/tmp"], "--project goes with --format markdown"),
        (["log", "note", "--show"], "not both"),
        (["index", "a.md", "--forget", "--glob", "*.md"], "--forget takes only paths"),
    ],
)
def test_bad_values_get_plain_messages_and_exit_2_without_a_daemon(
    argv: list[str], message: str, home: Path
) -> None:
    r = run_cli(*argv)
    assert r.code == 2, r
    assert message in r.err, r.err
    assert "Expected" not in r.err and "$." not in r.err  # no wire jargon
    assert nothing_started(home) == []  # nothing was stored: there was no daemon to store it


def test_a_value_only_the_daemon_refuses_gets_a_plain_message_and_exit_2() -> None:
    r = run_cli("remember", "x", "--ttl", "999999w")
    assert r.code == 2, r
    assert "ttl 999999w is longer than 36500 days" in r.err, r.err
    assert "Expected" not in r.err and "$." not in r.err
    assert run_cli("stats", "--json").json()["total"] == 0  # nothing was stored


def test_content_over_the_limit_is_a_usage_error_saying_the_limit() -> None:
    """Too-large content exited 1 (an error of Enyal's) where every other bad value
    exits 2: it is the caller's input, refused with the limit, and nothing is stored."""
    r = run_cli("remember", "x" * (64 * 1024 + 1))
    assert r.code == 2, r
    assert "the limit is 65536" in r.err, r.err
    assert run_cli("stats", "--json").json()["total"] == 0


def test_importing_notes_that_are_no_export_is_one_usage_error(tmp_path: Path) -> None:
    """`enyal import notes.md` (plain Markdown) said "not JSON" once a line, or "no
    front matter" as a failed import (exit 1): one message saying what import reads and
    how Markdown is kept instead, exit 2, nothing stored."""
    notes = "# Notes\n\n- we deploy on Fridays\n- the database is Postgres\n"
    for name in ("notes.md", "notes.txt"):
        (tmp_path / name).write_text(notes, encoding="utf-8")
        r = run_cli("import", str(tmp_path / name))
        assert r.code == 2, r
        assert len(r.err.strip().splitlines()) == 1, r.err
        assert "JSON Lines" in r.err and "enyal index" in r.err, r.err
        assert "line 3" not in r.err
    assert run_cli("stats", "--json").json()["total"] == 0


def test_hub_rule_remove_takes_the_project_alone_and_says_when_there_is_none() -> None:
    """`enyal hub rule --remove PROJECT` (the daemon's hub.unrule; its removals are
    tests/test_hub_converge.py's): a space beside it, or none without it, is a usage
    error; a project without a rule is said so, with where the rules are listed."""
    both = run_cli("hub", "rule", "--remove", ".", "team")
    assert both.code == 2 and "--remove takes the project alone" in both.err, both
    neither = run_cli("hub", "rule", ".")
    assert neither.code == 2 and "--remove PROJECT" in neither.err, neither
    none = run_cli("hub", "rule", "--remove", "/")
    assert none.code == 1 and "no rule for /" in none.err and "hub status" in none.err, none


def test_choices_and_bounds_come_from_the_protocol() -> None:
    assert ct.choices(p.RememberParams, "content_type") == (
        "fact",
        "preference",
        "decision",
        "convention",
        "pattern",
    )
    assert ct.choices(p.TraverseParams, "edge_types") == p.EDGE_TYPES
    assert ct.bounds(p.TraverseParams, "depth") == ct.Bounds(ge=1, le=4)
    assert ct.bounds(p.RecallParams, "limit") == ct.Bounds(ge=1, le=100)
    with pytest.raises(ct.UsageError, match="--type must be one of relates_to"):
        ct.check(
            "link",
            {"source_id": "a", "target_id": "b", "edge_type": "likes"},
            {"edge_type": "--type"},
        )


def test_recall_drops_unrelated_results_unless_all() -> None:
    remember("The CI pipeline runs on GitHub Actions.")
    remember("Database migrations are written with Alembic.")
    floor = run_cli("recall", "zebra crossing lights", "--json").json()["results"]
    everything = run_cli("recall", "zebra crossing lights", "--all", "--json").json()["results"]
    assert floor == [] and len(everything) == 2
    hit = run_cli("recall", "which CI system do we use?", "--json").json()["results"]
    assert [h["content"] for h in hit][:1] == ["The CI pipeline runs on GitHub Actions."]


def test_long_memories_are_cut_in_human_output_only() -> None:
    long = "The release checklist: " + " ".join(f"step {i} is done by hand;" for i in range(80))
    eid = remember(long)
    out = run_cli("recall", "release checklist steps").out
    first = out.splitlines()[0]
    assert len(first) < 300 and "chars)" in first and long not in out
    assert (
        run_cli("recall", "release checklist steps", "--json").json()["results"][0]["content"]
        == long
    )
    assert long in run_cli("get", eid[:8]).out


def test_forget_and_restore_say_when_nothing_changed() -> None:
    eid = remember("Feature flags live in LaunchDarkly.")
    assert run_cli("restore", eid).out.strip() == f"{eid} is not forgotten: nothing changed"
    assert "forgotten (enyal restore" in run_cli("forget", eid).out
    again = run_cli("forget", eid)
    assert again.code == 0 and again.out.strip() == f"{eid} already forgotten: nothing changed"
    assert run_cli("restore", eid).out.strip() == f"restored {eid}"
    history = run_cli("history", eid, "--json").json()["versions"]  # newest first
    assert [v["change_type"] for v in history] == ["restored", "forgotten", "created"]


def test_edges_accepts_in_and_out() -> None:
    old = remember("We deploy with ArgoCD.")
    new = remember("We deploy with Flux.", "--supersedes", old)
    for direction, expected in (("in", 1), ("incoming", 1), ("out", 0), ("outgoing", 0)):
        r = run_cli("edges", old, "--direction", direction, "--json")
        assert len(r.json()["edges"]) == expected, (direction, r)
    assert (
        run_cli("edges", new, "--direction", "out", "--json").json()["edges"][0]["target_id"] == old
    )


def test_a_round_trip_through_the_cli_keeps_supersession(tmp_path: Path, home: Path) -> None:
    old = remember("We deploy with ArgoCD.", "--type", "decision")
    remember("We deploy with Flux.", "--type", "decision", "--supersedes", old)
    dump = tmp_path / "all.jsonl"
    assert run_cli("export", str(dump)).code == 0
    assert run_cli("daemon", "stop").code == 0
    for name in ("enyal.db", "enyal.db-wal", "enyal.db-shm"):
        (home / name).unlink(missing_ok=True)
    back = run_cli("import", str(dump), "--json").json()
    assert (back["stored"], back["edges"], back["failed"]) == (3, 1, 0)
    # Exported again before anything reads the memories: a recall counts an access, which
    # an export made after it carries (below).
    again = tmp_path / "again.jsonl"
    assert run_cli("export", str(again)).code == 0
    assert dump.read_text().splitlines()[1:] == again.read_text().splitlines()[1:]
    top = run_cli("recall", "how do we deploy?", "--json").json()["results"]
    assert top[0]["content"] == "We deploy with Flux."
    assert all(h["content"] != "We deploy with ArgoCD." for h in top)  # still superseded
    # The recall just answered is in the next export, not only once the daemon's periodic
    # bookkeeping flush has run: an export does not depend on when it is made.
    later = tmp_path / "later.jsonl"
    assert run_cli("export", str(later)).code == 0
    rows = [json.loads(x) for x in later.read_text().splitlines()[1:]]
    counts = {r["content"]: r["access_count"] for r in rows if "access_count" in r}
    assert counts["We deploy with Flux."] == 1, counts


def test_markdown_export_per_project(tmp_path: Path) -> None:
    proj = tmp_path / "shop"
    (proj / ".git").mkdir(parents=True)
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)

    def add(text: str, cwd: Path, *extra: str) -> str:
        r = run_cli("remember", text, *extra, "--json", cwd=cwd)
        assert r.code == 0, r.err
        return str(r.json()["id"])

    old = add("Payments go through Braintree.", proj, "--type", "decision")
    add("Payments go through Stripe.", proj, "--type", "decision", "--supersedes", old)
    add("Use pytest fixtures, not setUp.", proj, "--type", "convention", "--tag", "testing")
    add("The other project uses Go.", other)
    doc = tmp_path / "MEMORY.md"
    r = run_cli("export", str(doc), "--format", "markdown", "--project", str(proj))
    assert r.code == 0, r.err
    text = doc.read_text()
    assert text.startswith("# Memories of shop")
    assert f"## Project `{proj}`" in text
    assert text.index("### Conventions") < text.index("### Decisions")
    assert "`testing`" in text and "added 20" in text
    assert "~~Payments go through Braintree.~~ — superseded by: “Payments go through Stripe.”" in (
        text
    )
    assert "Go." not in text
    assert run_cli("export", "--project", str(proj)).code == 2  # markdown only


def test_backup_from_the_cli(tmp_path: Path) -> None:
    remember("Backups are taken nightly.")
    target = tmp_path / "copy.db"
    r = run_cli("backup", str(target))
    assert r.code == 0 and "restore:" in r.out, r.err
    with sqlite3.connect(target) as db:
        assert db.execute("pragma integrity_check").fetchone() == ("ok",)
        assert db.execute("select count(*) from context_entries").fetchone() == (1,)
    exists = run_cli("backup", str(target))
    assert exists.code == 1 and "exists" in exists.err
    assert run_cli("backup", str(target), "--force").code == 0
    assert json.loads(run_cli("backup", str(target), "--force", "--json").out)["entries"] == 1


def test_importance_ttl_and_confirm(home: Path) -> None:
    low = remember("The staging cluster is called blue.", "--importance", "1")
    high = remember("The production cluster is called green.", "--importance", "5")
    hits = run_cli("recall", "what is the cluster called?", "--json").json()["results"]
    assert [h["id"] for h in hits][:2] == [high, low]  # near-ties ordered by importance
    only = run_cli("recall", "cluster", "--min-importance", "4", "--json").json()["results"]
    assert [h["id"] for h in only] == [high]
    scratch = remember("The flaky test today is test_upload.", "--ttl", "7d")
    entry = run_cli("get", scratch, "--json").json()
    assert entry["expires_at"] > entry["created_at"]
    assert run_cli("update", scratch, "--ttl", "never", "--json").json()["expires_at"] is None
    done = run_cli("confirm", low, "--json").json()
    assert done["confirm_count"] == 1 and done["confirmed_at"] >= done["updated_at"]
    assert "confirmed" in run_cli("confirm", low).out
    assert "importance 1" in run_cli("get", low).out


def test_list_pages_filters_and_batch_recall(home: Path) -> None:
    ids = [
        remember(f"Service {name} is owned by team {team}.", "--metadata", json.dumps(meta))
        for name, team, meta in (
            ("billing", "payments", {"team": "payments", "tier": 1}),
            ("search", "discovery", {"team": "discovery", "tier": 2}),
            ("ledger", "payments", {"team": "payments", "tier": 2, "legacy": True}),
        )
    ]
    pages: list[str] = []
    cursor: list[str] = []
    while True:
        page = run_cli("list", "--sort", "created", "--asc", "--limit", "2", *cursor, "--json")
        body = page.json()
        pages += [e["id"] for e in body["entries"]]
        if body["next"] is None:
            break
        cursor = ["--cursor", body["next"]]
    assert pages == ids  # every entry once, oldest first, across pages
    payments = run_cli("list", "--where", "team=payments", "--json").json()["entries"]
    assert {e["id"] for e in payments} == {ids[0], ids[2]}
    legacy = run_cli("list", "--where", "legacy=true", "--where", "tier=2", "--json").json()
    assert [e["id"] for e in legacy["entries"]] == [ids[2]]
    where = run_cli("recall", "who owns it", "--where", "team=discovery", "--all", "--json")
    assert [h["id"] for h in where.json()["results"]] == [ids[1]]
    assert "more: add --cursor" in run_cli("list", "--limit", "1").out
    bad = run_cli("list", "--cursor", "nonsense")
    assert bad.code == 2 and "cursor" in bad.err
    batch = run_cli("recall", "-q", "billing owner", "-q", "search owner", "--json").json()
    assert [r["results"][0]["id"] for r in batch["results"]] == [ids[0], ids[1]]
    text = run_cli("recall", "-q", "billing owner", "-q", "search owner").out
    assert "# billing owner" in text and "# search owner" in text

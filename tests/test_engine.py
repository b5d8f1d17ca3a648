"""The engine and its verbs (service/) against a real database and the real model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import msgspec
import pytest
import sqlite_vec

from enyal_daemon.errors import InvalidValue, NotFound, TooLarge
from enyal_daemon.service.memory import memories
from enyal_daemon.service.memory import recall as recall_verb
from enyal_daemon.service.rules import scoring
from enyal_daemon.service.rules.clock import SYSTEM
from enyal_daemon.service.upkeep import stats as stats_verb
from enyal_daemon.service.upkeep import transfer
from enyal_daemon.store import entries
from enyal_protocol import wire as p

CORPUS = {
    "pytest": "Tests use pytest with fixtures; database tests get a fresh SQLite file per test.",
    "ruff": "Lint Python with ruff; flake8 and pylint are not used in this repository.",
    "deploy": "Production deploys go out through the GitHub Actions release workflow on tags.",
    "tabs": "The user prefers four-space indentation and never tabs.",
    "postgres": "The service stores orders in PostgreSQL 16; Redis is only a cache.",
    "auth": "Authentication uses short-lived JWTs signed with RS256, refreshed every 15 minutes.",
    "retry": "HTTP calls to the payment provider retry three times with exponential backoff.",
    "logging": "Log with structlog as JSON lines; never print() in library code.",
    "commits": "Commit messages follow Conventional Commits (feat:, fix:, chore:).",
    "pinning": "Dependencies are pinned with uv lock; upgrade them in a dedicated pull request.",
    "timezone": "All timestamps are stored in UTC and converted to local time only in the UI.",
    "api": "The public REST API is versioned in the URL path, like /v2/orders.",
}

# Paraphrases that share few words with their target: meaning has to carry them.
PARAPHRASES = {
    "which linter should I run on the code?": "ruff",
    "how do releases reach production?": "deploy",
    "what database holds customer purchases?": "postgres",
    "how are users logged in?": "auth",
    "what happens when the payment gateway call fails?": "retry",
    "indentation style preference": "tabs",
    "how should I write the git commit message?": "commits",
    "what time zone are dates saved in?": "timezone",
}


# Paraphrases where MiniLM's meaning is close to a distractor's ("version" also matches the
# API-versioning entry): the target must still be in the top 3.
HARD_PARAPHRASES = {
    "how do we ship a new version to prod?": "deploy",
    "where do we keep caching?": "postgres",
}


def remember(memory: Any, content: str, **kw: Any) -> p.RememberResult:
    kw.setdefault("scope", "global")
    result: p.RememberResult = memories.remember(memory, p.RememberParams(content=content, **kw))
    return result


def recall(memory: Any, query: str, **kw: Any) -> list[p.Hit]:
    hits: list[p.Hit] = recall_verb.recall(memory, p.RecallParams(query=query, **kw)).results
    return hits


@pytest.fixture
def corpus(memory: Any) -> dict[str, str]:
    return {key: remember(memory, text).id for key, text in CORPUS.items()}


def test_paraphrase_is_found_above_distractors(memory: Any, corpus: dict[str, str]) -> None:
    misses = []
    for query, key in PARAPHRASES.items():
        hits = recall(memory, query, limit=3)
        if hits[0].id != corpus[key]:
            misses.append((query, key, hits[0].content))
    for query, key in HARD_PARAPHRASES.items():
        if corpus[key] not in [h.id for h in recall(memory, query, limit=3)]:
            misses.append((query, key, "not in the top 3"))
    assert not misses


def test_keyword_match_counts_when_meaning_is_weak(memory: Any, corpus: dict[str, str]) -> None:
    # "RS256" is a token the model barely understands; BM25 finds it.
    hits = recall(memory, "RS256")
    assert hits[0].id == corpus["auth"]
    assert hits[0].keyword > 0


def test_keyword_scores_keep_the_order_of_strong_matches(memory: Any) -> None:
    # Repeating a rare word lifts BM25 above the sum of the query's IDFs; both entries
    # do, and the one that says it more (in fewer words) must still rank first on words.
    dense = remember(memory, "zebrafish zebrafish zebrafish zebrafish assay")
    loose = remember(memory, "zebrafish zebrafish assay notes, with other words around them")
    by_id = {h.id: h.keyword for h in recall(memory, "zebrafish", limit=5)}
    assert by_id[dense.id] > by_id[loose.id] > 0


def test_score_parts_are_reported_and_combine(memory: Any, corpus: dict[str, str]) -> None:
    hit = recall(memory, "which linter should I run on the code?", limit=1)[0]
    assert hit.score == pytest.approx(scoring.score_of(hit))
    assert 0 < hit.semantic <= 1 and 0 <= hit.keyword < 1
    assert hit.recency == pytest.approx(1.0, abs=1e-3)


def test_score_is_one_formula_at_every_importance(memory: Any) -> None:
    """A returned hit re-scored from the parts it reports gives its score, whatever its
    importance (the tests' formula once left importance out: right only at 3)."""
    for importance in (1, 3, 5):
        remember(
            memory, f"Run ruff before every commit (note {importance}).", importance=importance
        )
    hits = recall(memory, "which linter runs before a commit?", limit=3)
    assert sorted(h.importance for h in hits) == [1, 3, 5]
    for h in hits:
        assert h.score == pytest.approx(scoring.score_of(h))
    top = next(h for h in hits if h.importance == 5)
    assert 0 < top.score <= 1


def test_age_orders_like_memories_but_never_buries_a_relevant_one(memory: Any) -> None:
    """Trust weighs a score between half and all of it: a fact two years old that answers
    the query still comes before a fresh one that does not, and after its fresher twin."""
    lines = [
        {
            "content": "The staging database listens on port 5433.",
            "updated_at": "2024-11-01T00:00:00Z",
        },
        # the same words a year fresher (the dedup merges only identical text)
        {
            "content": "The staging database listens on port 5433 .",
            "updated_at": "2025-11-01T00:00:00Z",
        },
    ]
    encoded = [msgspec.json.encode(line).decode() for line in lines]
    aged, newer = (x.id for x in transfer.import_lines(memory, p.ImportParams(lines=encoded)).lines)
    fresh = remember(memory, "Lunch is ordered on Fridays from the place across the street.")
    # min_confidence 0: by default a fact this stale is left out altogether
    hits = recall(memory, "which port does the staging database use?", limit=3, min_confidence=0)
    assert [h.id for h in hits] == [newer, aged, fresh.id]
    assert hits[1].effective_confidence < 0.01 < hits[0].effective_confidence < 0.1
    for h in hits:
        assert h.score == pytest.approx(scoring.score_of(h))


def test_fts_operators_in_queries_are_literal(memory: Any, corpus: dict[str, str]) -> None:
    for query in ['"', "*", "NEAR(", "OR", "-", "content:ruff", 'ruff" OR "x', "^ruff", "(ruff"]:
        recall(memory, query)  # no FTS5 syntax error
    assert recall(memory, "content:ruff")[0].id == corpus["ruff"]


def test_exact_duplicate_returns_existing(memory: Any) -> None:
    first = remember(memory, "Use ruff.")
    again = remember(memory, "Use ruff.")
    assert (again.action, again.id) == ("existing", first.id)
    other_scope = remember(memory, "Use ruff.", scope="project", scope_path="/tmp/x")
    assert other_scope.action == "created"  # the same words in another scope are another memory


def test_a_repeated_text_is_not_embedded_again(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A spy, not a fake: the real model still embeds; the test counts how often.
    embedded: list[str] = []
    real = memory.embed_memory
    monkeypatch.setattr(memory, "embed_memory", lambda text: embedded.append(text) or real(text))
    text = " ".join(f"Step {i}: run ruff on package p{i} before its tests." for i in range(12))
    first = remember(memory, text)
    assert (first.action, embedded) == ("created", [text])
    assert remember(memory, text).id == first.id and embedded == [text]


def test_semantic_dedup_decisions(memory: Any) -> None:
    base = remember(memory, "We lint Python code with ruff.")
    near = "We lint our Python code using ruff."
    rejected = remember(memory, near, dedup="reject")
    assert rejected.action == "rejected" and rejected.id == base.id
    assert rejected.similarity is not None and rejected.similarity >= 0.85
    stored = remember(memory, near, dedup="store")
    assert stored.action == "stored" and stored.duplicate_of == base.id and stored.id != base.id
    memories.forget(memory, p.ForgetParams(id=stored.id, hard=True))
    merged = remember(memory, near, dedup="merge")
    assert merged.action == "merged" and merged.id == base.id
    assert memories.get(memory, p.GetParams(id=base.id)).content == near
    unrelated = remember(memory, "The office plant needs water on Fridays.", dedup="reject")
    assert unrelated.action == "created"
    assert unrelated.similarity is not None and unrelated.similarity < 0.85


def test_decay_and_access_boost() -> None:
    assert scoring.effective_confidence(1.0, "fact", 90.0, 0) == pytest.approx(0.5, rel=1e-3)
    # conventions decay five times slower than facts
    conv = scoring.effective_confidence(1.0, "convention", 90.0, 0)
    assert conv == pytest.approx(0.5 ** (0.2), rel=1e-3)
    assert scoring.recency(30.0) == pytest.approx(0.5)
    boosted = scoring.effective_confidence(1.0, "fact", 90.0, 10)
    assert boosted == pytest.approx(0.5 + min(0.2, 0.05 * 2.3979), rel=1e-3)


def test_old_entries_fall_below_min_confidence_only_when_asked(memory: Any) -> None:
    line = (
        '{"content": "An ancient fact about the build system", "scope_level": "global", '
        '"updated_at": "2020-01-01T00:00:00Z", "created_at": "2020-01-01T00:00:00Z"}'
    )
    r = transfer.import_lines(memory, p.ImportParams(lines=[line]))
    assert r.stored == 1
    # Decay ranks, it does not hide (issue 24): found by default, its confidence decayed.
    hits = recall(memory, "ancient fact about the build system")
    assert hits and hits[0].effective_confidence < 0.01
    assert recall(memory, "ancient fact about the build system", min_confidence=0.3) == []


def test_filters(memory: Any, tmp_path: Path) -> None:
    a = remember(memory, "Use tabs in Makefiles.", content_type="convention", tags=["make"])
    b = remember(memory, "Use tabs in Go code.", content_type="fact", tags=["go", "style"])
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    c = remember(memory, "Use tabs in this project's TSV fixtures.", scope="project", cwd=str(proj))
    assert c.entry.scope_path == str(proj)

    def ids(**kw: Any) -> set[str]:
        return {h.id for h in recall(memory, "tabs", **kw)}

    assert ids() == {a.id, b.id, c.id}
    assert ids(content_type="convention") == {a.id}
    assert ids(tags=["go"]) == {b.id}
    assert ids(tags=["go", "make"]) == set()
    assert ids(scope="project", cwd=str(proj / "sub")) == {c.id}
    assert ids(scope="global") == {a.id, b.id}
    memories.forget(memory, p.ForgetParams(id=a.id))
    assert ids() == {b.id, c.id}
    assert ids(include_deprecated=True) == {a.id, b.id, c.id}


def test_scope_resolution_chain(memory: Any, tmp_path: Path) -> None:
    ws = tmp_path / "work"
    proj = ws / "app"
    (proj / "src").mkdir(parents=True)
    (proj / "pyproject.toml").write_text("")
    f = proj / "src" / "auth.py"
    f.write_text("")
    ids = {
        "file": remember(
            memory, "auth.py hashes passwords with argon2", scope="file", scope_path=str(f)
        ).id,
        "project": remember(
            memory, "passwords are hashed in the auth module", scope="project", scope_path=str(proj)
        ).id,
        "workspace": remember(
            memory,
            "all services hash passwords the same way",
            scope="workspace",
            scope_path=str(ws),
        ).id,
        "global": remember(memory, "never store passwords in plain text").id,
        "elsewhere": remember(
            memory,
            "passwords in another project are hashed with bcrypt",
            scope="project",
            scope_path="/elsewhere",
        ).id,
    }
    r = recall_verb.recall_by_scope(
        memory, p.RecallByScopeParams(query="how are passwords hashed", file_path=str(f))
    )
    assert [(s.level, s.path, s.weight) for s in r.scopes] == [
        ("file", str(f), 1.0),
        ("project", str(proj), 0.9),
        ("workspace", str(ws), 0.8),
        ("global", None, 0.7),
    ]
    got = {h.id: h.scope_weight for h in r.results}
    assert ids["elsewhere"] not in got
    assert got == {ids["file"]: 1.0, ids["project"]: 0.9, ids["workspace"]: 0.8, ids["global"]: 0.7}


def test_get_update_forget_restore(memory: Any) -> None:
    e = remember(memory, "The cache TTL is 5 minutes.", tags=["cache"]).entry
    assert memories.get(memory, p.GetParams(id=e.id)) == e
    u = memories.update(
        memory,
        p.UpdateParams(
            id=e.id, content="The cache TTL is 10 minutes.", confidence=0.8, tags=["cache", "ttl"]
        ),
    )
    assert (u.content, u.confidence, u.tags) == (
        "The cache TTL is 10 minutes.",
        0.8,
        ["cache", "ttl"],
    )
    # The tag filter follows the update: the new tag finds it, a dropped one does not.
    assert [h.id for h in recall(memory, "cache TTL", tags=["ttl"])] == [e.id]
    memories.update(memory, p.UpdateParams(id=e.id, tags=["ttl"]))
    assert recall(memory, "cache TTL", tags=["cache"]) == []
    assert u.updated_at >= e.updated_at and u.created_at == e.created_at
    assert recall(memory, "10 minutes")[0].id == e.id
    with pytest.raises(InvalidValue):
        memories.update(memory, p.UpdateParams(id=e.id))
    assert memories.forget(memory, p.ForgetParams(id=e.id)).action == "deprecated"
    assert memories.get(memory, p.GetParams(id=e.id)).is_deprecated
    assert recall(memory, "cache TTL") == []
    assert not memories.restore(memory, p.RestoreParams(id=e.id)).is_deprecated
    assert recall(memory, "cache TTL")[0].id == e.id
    assert memories.forget(memory, p.ForgetParams(id=e.id, hard=True)).action == "deleted"
    with pytest.raises(NotFound):
        memories.get(memory, p.GetParams(id=e.id))
    with pytest.raises(NotFound):
        memories.forget(memory, p.ForgetParams(id=e.id))
    with pytest.raises(NotFound):
        memories.restore(memory, p.RestoreParams(id=e.id))


def test_hard_forget_removes_vector_and_text(memory: Any, home: Path) -> None:
    e = remember(memory, "Remove me completely, zanzibar.")
    memories.forget(memory, p.ForgetParams(id=e.id, hard=True))
    conn = apsw.Connection(str(home / "enyal.db"))
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    assert conn.execute("SELECT count(*) FROM context_vectors").fetchone()[0] == 0
    assert (
        conn.execute(
            "SELECT count(*) FROM context_fts WHERE context_fts MATCH 'zanzibar'"
        ).fetchone()[0]
        == 0
    )
    assert len(memory.index) == 0


def test_content_limits(memory: Any) -> None:
    with pytest.raises(InvalidValue):
        remember(memory, "   ")
    with pytest.raises(InvalidValue):
        remember(memory, "nul\x00byte")
    with pytest.raises(TooLarge):
        remember(memory, "x" * (64 * 1024 + 1))
    with pytest.raises(InvalidValue):
        remember(memory, "needs a path", scope="file")
    assert entries.count(memory.reader()) == 0


def test_stats(memory: Any, corpus: dict[str, str]) -> None:
    remember(memory, "A low-confidence hunch.", confidence=0.2, content_type="pattern")
    memories.forget(memory, p.ForgetParams(id=corpus["api"]))
    s = stats_verb.stats(memory)
    assert (s.total, s.active, s.deprecated) == (len(CORPUS) + 1, len(CORPUS), 1)
    assert s.by_type["fact"] == len(CORPUS) - 1 and s.by_type["pattern"] == 1
    assert s.by_scope["global"] == len(CORPUS)
    assert s.confidence["low (<0.3)"] == 1
    assert s.db_bytes > 0 and s.oldest is not None and s.oldest <= (s.newest or "")


def test_import_export_round_trip_is_lossless(memory: Any, embedder: Any, tmp_path: Path) -> None:
    from enyal_daemon.service.core.engine import Engine

    remember(
        memory,
        "One",
        tags=["a", "b"],
        metadata={"k": [1, 2]},
        source_type="commit",
        source_ref="abc123",
    )
    gone = remember(memory, "Two", content_type="decision", confidence=0.4)
    memories.forget(memory, p.ForgetParams(id=gone.id))
    remember(memory, "Three ünïcödé ✓", scope="file", scope_path="/src/x.py")
    exported = transfer.export_page(memory, p.ExportParams(limit=2))
    assert len(exported.entries) == 2 and exported.next is not None
    rest = transfer.export_page(memory, p.ExportParams(after=exported.next))
    assert rest.next is None
    original = exported.entries + rest.entries
    lines = [msgspec.json.encode(e).decode() for e in original]
    other = Engine(tmp_path / "other.db", embedder)
    try:
        r = transfer.import_lines(other, p.ImportParams(lines=lines))
        assert (r.stored, r.existing, r.failed) == (3, 0, 0)
        again = transfer.import_lines(other, p.ImportParams(lines=lines))
        assert (again.stored, again.existing) == (0, 3)
        assert transfer.export_page(other, p.ExportParams()).entries == original
        assert recall(other, "Three")[0].content == "Three ünïcödé ✓"
    finally:
        other.close()


def test_import_reports_each_line_and_never_half_applies(memory: Any) -> None:
    lines = [
        '{"content": "good one"}',
        "not json",
        '{"content": ""}',
        '{"content": "bad date", "created_at": "yesterday"}',
        '{"content": "bad type", "content_type": "opinion"}',
        '{"content": "file without path", "scope_level": "file"}',
        "",
        '{"content": "good two", "tags": ["x"]}',
    ]
    r = transfer.import_lines(memory, p.ImportParams(lines=lines, first_line=10))
    assert (r.stored, r.existing, r.failed) == (2, 0, 5)
    assert [x.line for x in r.lines if x.status == "failed"] == [11, 12, 13, 14, 15]
    assert all(x.error for x in r.lines if x.status == "failed")
    assert entries.count(memory.reader()) == 2


def test_reopen_rebuilds_index(home: Path, embedder: Any) -> None:
    from enyal_daemon.service.core.engine import Engine

    m = Engine(home / "enyal.db", embedder)
    e = remember(m, "Persisted across restarts.")
    m.close()
    m2 = Engine(home / "enyal.db", embedder)
    try:
        assert recall(m2, "persisted across restarts")[0].id == e.id
    finally:
        m2.close()


def test_timestamps_are_utc_iso() -> None:
    assert SYSTEM.now_iso().endswith("Z")


def test_recall_and_get_count_accesses(memory: Any) -> None:
    e = remember(memory, "Access counting works.")
    other = remember(memory, "An unrelated memory about gardening.")
    assert memories.get(memory, p.GetParams(id=e.id)).access_count == 0  # counted: 1
    for _ in range(2):
        assert recall(memory, "access counting", limit=1)[0].id == e.id
    memory.flush_bookkeeping()
    got = memories.get(memory, p.GetParams(id=e.id))
    assert got.access_count == 3 and got.accessed_at is not None  # a get, two recalls
    assert memory.require(other.id).access_count == 0  # neither recalled nor got


def test_unselective_filters_take_the_widened_path(
    memory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from enyal_daemon.service.memory import recall as recall_module

    ids = {key: remember(memory, text).id for key, text in CORPUS.items()}
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    local = remember(memory, "Lint this project with ruff too.", scope="project", cwd=str(proj))
    # The global filter lets 12 entries through: more than 5, so the KNN runs over every
    # entry, widened, and the candidates are filtered afterwards.
    monkeypatch.setattr(recall_module, "EXACT_FILTER_MAX", 5)
    hits = recall(memory, "which linter should I run on the code?", scope="global")
    assert hits[0].id == ids["ruff"]
    assert local.id not in {h.id for h in hits}
    assert {h.scope_level for h in hits} == {"global"}
    scoped = recall(memory, "which linter should I run?", scope="project", cwd=str(proj))
    assert [h.id for h in scoped] == [local.id]


def test_a_relevance_floor_drops_what_matches_neither_in_meaning_nor_in_words(
    memory: Any,
) -> None:
    ruff = remember(memory, "Lint the code with ruff before committing.")
    remember(memory, "The office plants are watered on Mondays.")
    everything = recall(memory, "which linter do we use?", min_confidence=0)
    assert len(everything) == 2  # no floor: every candidate, however unrelated
    floored = recall(memory, "which linter do we use?", min_confidence=0, min_relevance=0.2)
    assert [h.id for h in floored] == [ruff.id]
    assert all(h.semantic >= 0.2 or h.keyword**0.5 >= 0.2 for h in floored)

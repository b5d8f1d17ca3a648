"""Keyword search in Chinese, Japanese and Korean text (issue 24): a query word that is
part of a longer run of CJK characters is found. FTS5's unicode61 tokenizer reads a run
as one token, so before the side index of bigrams (store/cjk.py) it was not.

Real store, real triggers: entries go in through import (the write path), the search is
the one recall runs, and update / hard forget / the migration of an existing database
keep the side index right."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import msgspec
import pytest
import sqlite_vec

from enyal_daemon.index import keywords
from enyal_daemon.service.memory import memories
from enyal_daemon.service.upkeep import transfer
from enyal_daemon.store import cjk, migrations
from enyal_protocol import wire as p

TEXTS = [
    "数据库连接池配置在 config/db.yaml 里,最大连接数是 20。",
    "部署前先运行单元测试和集成测试。",
    "本番環境のデータベース接続はプール経由で行う。",
    "데이터베이스연결은 풀을 사용한다",
    "The connection pool size is 20 for the staging database.",
]


@pytest.fixture
def ids(memory: Any) -> list[str]:
    lines = [msgspec.json.encode({"content": t}).decode() for t in TEXTS]
    result = transfer.import_lines(memory, p.ImportParams(lines=lines))
    assert result.stored == len(TEXTS)
    return [r.id for r in result.lines]


def found(memory: Any, query: str) -> set[int]:
    """Indexes into TEXTS of the entries keyword search returns."""
    conn = memory.reader()
    hits = keywords.search(conn, keywords.DocCounts(), query, 20)
    rids = {rid for rid, score in hits if score > 0}
    out = set()
    for i, text in enumerate(TEXTS):
        row = conn.execute("SELECT rid FROM context_entries WHERE content = ?", (text,)).fetchone()
        if row and int(row[0]) in rids:
            out.add(i)
    return out


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("连接池", {0}),  # inside 数据库连接池配置
        ("配置", {0}),  # the end of a run
        ("集成测试", {1}),
        ("测试", {1}),
        ("データベース", {2}),  # katakana inside a kana-kanji run
        ("接続", {2}),
        ("연결", {3}),  # Hangul inside a run with no spaces
        ("池", {0}),  # one character
        ("connection pool", {4}),  # other scripts as before
        ("连接池 pool", {0, 4}),  # both in one query
        ("缓存", set()),  # a word no entry holds
        ("池数库", set()),  # the characters are there, no two of them in this order
        ("连接池的配置方法", {0}),  # a question: part of its bigrams match
    ],
)
def test_a_word_inside_a_cjk_run_is_found(
    memory: Any, ids: list[str], query: str, expected: set[int]
) -> None:
    assert found(memory, query) == expected


def test_scores_stay_in_zero_one_and_a_whole_match_ranks_first(memory: Any, ids: list[str]) -> None:
    hits = keywords.search(memory.reader(), keywords.DocCounts(), "数据库 连接池", 10)
    assert hits and all(0 < score <= 1 for _, score in hits)
    best = (
        memory.reader()
        .execute("SELECT content FROM context_entries WHERE rid = ?", (hits[0][0],))
        .fetchone()[0]
    )
    assert best == TEXTS[0]


def test_update_and_hard_forget_keep_the_side_index(memory: Any, ids: list[str]) -> None:
    memories.update(memory, p.UpdateParams(id=ids[0], content="缓存服务使用 Redis 集群。"))
    assert found(memory, "连接池") == set()
    conn = memory.reader()
    hits = keywords.search(conn, keywords.DocCounts(), "缓存", 10)
    assert len(hits) == 1
    memories.forget(memory, p.ForgetParams(id=ids[0], hard=True))
    assert keywords.search(memory.reader(), keywords.DocCounts(), "缓存", 10) == []
    # An update to text without CJK leaves no row behind; one back to CJK adds it again.
    memories.update(memory, p.UpdateParams(id=ids[1], content="Run the unit tests first."))
    assert found(memory, "测试") == set()
    memories.update(memory, p.UpdateParams(id=ids[1], content="先运行单元测试。"))
    assert keywords.search(memory.reader(), keywords.DocCounts(), "单元", 10) != []


def test_the_migration_indexes_entries_already_stored(tmp_path: Path) -> None:
    conn = apsw.Connection(str(tmp_path / "old.db"))
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    cjk.register(conn)
    migrations.migrate(conn, upto=migrations.MIGRATIONS.index(migrations.m014_cjk_bigrams))
    conn.execute(
        "INSERT INTO context_entries (id, content, content_hash, content_type, scope_level, "
        "created_at, updated_at) VALUES ('e1', ?, 'h', 'fact', 'global', 't', 't')",
        (TEXTS[0],),
    )
    migrations.migrate(conn)
    hits = keywords.search(conn, keywords.DocCounts(), "连接池", 10)
    assert [rid for rid, _ in hits] == [1]
    row = conn.execute("INSERT INTO context_cjk(context_cjk) VALUES ('integrity-check')")
    assert row.fetchall() == []


def test_bigrams_and_queries() -> None:
    assert cjk.bigrams("数据库") == ["数据", "据库", "库"]
    assert cjk.bigrams("池") == ["池"]
    assert cjk.indexed_text("用 Redis 做缓存,数据库") == "用\n做缓 缓存 存\n数据 据库 库"
    assert cjk.query("连接池") == '"连接 接池"'
    assert cjk.query("池") == '"池"*'
    assert keywords.split_cjk(["api设计", "pool", "连接池", "池"]) == [
        ("api", False),
        ("设计", True),
        ("pool", False),
        ("连接", True),
        ("接池", True),
        ("池", True),
    ]


def test_a_whole_match_outscores_a_partial_one(memory: Any) -> None:
    lines = [
        msgspec.json.encode({"content": t}).decode()
        for t in ("连接池满了就排队。", "连接超时是五秒。", "线程池的大小是八。")
    ]
    transfer.import_lines(memory, p.ImportParams(lines=lines))
    conn = memory.reader()
    hits = dict(keywords.search(conn, keywords.DocCounts(), "连接池", 10))
    by_text = {
        conn.execute("SELECT content FROM context_entries WHERE rid = ?", (rid,)).fetchone()[0]: s
        for rid, s in hits.items()
    }
    # 线程池 shares a character, no bigram: not a hit.
    assert set(by_text) == {"连接池满了就排队。", "连接超时是五秒。"}
    assert by_text["连接池满了就排队。"] == max(by_text.values())
    assert by_text["连接池满了就排队。"] > by_text["连接超时是五秒。"]


def test_recall_ranks_the_entry_holding_the_word_first(memory: Any, ids: list[str]) -> None:
    """Through recall (meaning + words + recency): the model reads little of CJK text, so
    the words are what find it."""
    from enyal_daemon.service.memory import recall

    result = recall.recall(memory, p.RecallParams(query="连接池", limit=3))
    assert result.results[0].id == ids[0]
    assert result.results[0].keyword > 0
    result = recall.recall(memory, p.RecallParams(query="データベース接続", limit=3))
    assert result.results[0].id == ids[2]


def test_a_cjk_word_weighs_as_much_as_an_english_one_of_the_same_rarity(memory: Any) -> None:
    """FTS5's bm25() takes a word's rarity from its own table, and the CJK side index holds
    only the entries with CJK text: in a store of English memories and two Chinese ones,
    both holding 连接池, the pair weighed its floor there and scored ~1e-13 of an English
    word held by two memories, under unrelated hits. Weighed by the whole store, the
    two words of the same rarity score alike."""
    english = [f"The {w} service restarts nightly at {h}:00." for h, w in enumerate(WORDS)]
    texts = [
        *english,
        "数据库连接池配置在 config/db.yaml 里。",
        "连接池满了就排队。",
        "The pool of workers drains before a deploy.",
        "A pool of ten connections serves the staging database.",
    ]
    lines = [msgspec.json.encode({"content": t}).decode() for t in texts]
    transfer.import_lines(memory, p.ImportParams(lines=lines))
    conn = memory.reader()
    cjk_best = max(s for _, s in keywords.search(conn, keywords.DocCounts(), "连接池", 10))
    en_best = max(s for _, s in keywords.search(conn, keywords.DocCounts(), "pool", 10))
    assert 0.5 * en_best < cjk_best < 2 * en_best, (cjk_best, en_best)


WORDS = ["billing", "search", "mailer", "auth", "cache", "queue", "ledger", "gateway"]

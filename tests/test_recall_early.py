"""A recall's query embedding starts before the work every verb does first (issue 30).

The embedding is the longest part of a recall; the verbs' preamble (the cwd's project,
the expiry sweep) and the filter run on the request thread meanwhile, not before it.
The order of that work is what is under test and nothing outside shows it, so two of
the engine's own calls are wrapped to record it (each still runs as it would).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.service import verbs
from enyal_daemon.service.core import identity
from enyal_daemon.service.memory import recall
from enyal_protocol import wire as p

FACTS = [
    "Lint Python with ruff; flake8 and pylint are not used in this repository.",
    "Production deploys go out through the GitHub Actions release workflow on tags.",
    "The service stores orders in PostgreSQL 16; Redis is only a cache.",
]


@pytest.fixture
def recorded(memory: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[str]]:
    for fact in FACTS:
        memory_remember(memory, fact)
    order: list[str] = []
    embed, follow = memory.embed_query_soon, identity.follow

    def embedding(query: str) -> Any:
        order.append("embed")
        return embed(query)

    def following(engine: Any, cwd: str | None) -> None:
        order.append("project")
        follow(engine, cwd)

    monkeypatch.setattr(memory, "embed_query_soon", embedding)
    monkeypatch.setattr(identity, "follow", following)
    return memory, order


def memory_remember(memory: Any, content: str) -> None:
    from enyal_daemon.service.memory import memories

    memories.remember(memory, p.RememberParams(content=content, scope="global"))


def ids(result: Any) -> list[str]:
    return [h.id for h in result.results]


@pytest.mark.parametrize("method", ["recall", "recall_by_scope"])
def test_the_query_is_embedded_before_the_verbs_preamble(
    recorded: tuple[Any, list[str]], tmp_path: Path, method: str
) -> None:
    engine, order = recorded
    where = {"cwd": str(tmp_path)} if method == "recall" else {"file_path": str(tmp_path / "a.py")}
    params = p.METHODS[method].params(query="which linter do we use?", **where)
    got = verbs.bind(engine)[method](params)
    assert order == ["embed", "project"]  # one embedding, started first, and taken up
    assert got.results[0].content == FACTS[0]


def test_an_as_of_recall_starts_no_embedding_it_would_not_use(
    recorded: tuple[Any, list[str]], tmp_path: Path
) -> None:
    engine, order = recorded
    params = p.RecallParams(query="which linter?", cwd=str(tmp_path), as_of="2999-01-01")
    verbs.bind(engine)["recall"](params)
    # Its own embedding, once, after the preamble (embed_query goes through
    # embed_query_soon, which remembers a query's vector: embedder/memo.py).
    assert order == ["project", "embed"]


def test_an_embedding_started_for_another_query_is_not_taken(
    recorded: tuple[Any, list[str]], tmp_path: Path
) -> None:
    engine, _ = recorded
    recall.embed_early(engine, p.RecallParams(query="where are orders stored?"))
    asked = p.RecallParams(query="which linter do we use?", cwd=str(tmp_path))
    got = recall.recall(engine, asked)
    assert ids(got) == ids(verbs.bind(engine)["recall"](asked))
    assert got.results[0].content == FACTS[0]


def test_a_recalls_query_is_redacted_when_its_events_are_written(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off the request's thread: the flusher redacts, the analytics log holds no secret.
    The redactor is wrapped to count its calls (each runs the real rules)."""
    from enyal_daemon.service.upkeep import analytics

    for fact in FACTS:
        memory_remember(memory, fact)
    real, calls = memory.redactor, []

    class Counting:
        def redact(self, text: str) -> Any:
            calls.append(text)
            return real.redact(text)

    monkeypatch.setattr(memory, "redactor", Counting())
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    got = recall.recall(memory, p.RecallParams(query=f"which linter? token {secret}"))
    assert got.results and calls == []  # nothing scanned while the agent waited
    memory.flush_bookkeeping()
    assert len(calls) == 1  # once a recall, not once a hit
    logged = analytics.analytics(memory, p.AnalyticsParams(event_type="recall")).events
    assert [e.result_rank for e in reversed(logged)] == list(range(1, len(got.results) + 1))
    assert logged and all(e.query and "which linter?" in e.query for e in logged)
    assert not any(secret in (e.query or "") for e in logged)


def test_a_query_is_embedded_on_the_request_thread_while_requests_crowd(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alone, a query goes to an embedding worker (its keyword search runs meanwhile); with
    more requests in flight than workers it is embedded on the request's own thread: a
    hand-off would only queue it, two wake-ups dearer (ARCHITECTURE.md, "Round ten"). The
    vector is the same either way."""
    import threading
    from contextlib import ExitStack

    from enyal_daemon.service.core import engine as engine_mod
    from enyal_daemon.service.core import traffic

    where: list[str] = []
    embed = memory.embedder.embed

    def recorded(text: str) -> Any:
        where.append(threading.current_thread().name)
        return embed(text)

    monkeypatch.setattr(memory.embedder, "embed", recorded)
    alone = memory.embed_query_soon("how do we deploy to production?").result()
    with ExitStack() as crowd:
        for _ in range(engine_mod.EMBED_CONCURRENCY + 1):
            crowd.enter_context(traffic.serving())
        crowded = memory.embed_query_soon("which database holds the orders?")
        assert crowded.done(), "made before the call returned"
    assert where[0].startswith("enyal-embed-") and where[1] == threading.current_thread().name
    assert traffic.in_flight() == 0
    for text, vec in [
        ("how do we deploy to production?", alone),
        ("which database holds the orders?", crowded.result()),
    ]:
        assert (embed(text) == vec).all()

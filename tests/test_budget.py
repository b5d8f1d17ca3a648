"""Token budgets on recall and recall_by_scope, through the real daemon: the packed
results are recounted here with the model's own tokenizer, loaded afresh."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer

from conftest import run_cli, tokens
from daemon_support import RunningDaemon, isolated_env, running
from enyal_client.transport import RpcError
from enyal_protocol import wire as p

OVERHEAD = 12  # service/memory/budget.py's RESULT_OVERHEAD, as PROTOCOL.md states it

TOPICS = [
    "The deploy pipeline builds a wheel, uploads it to the internal index and restarts "
    "the workers one at a time so that the queue never stops draining.",
    "Database migrations run before the new code starts; a migration must never drop a "
    "column the previous release still reads, so removals wait one release.",
    "The deploy script refuses to run on a dirty work tree and prints the files that differ.",
    "Deploys happen on weekdays before 15:00 only, never on Fridays.",
    "Rollbacks re-deploy the previous wheel from the index; the deploy log names it.",
    "Feature flags for a deploy live in flags.toml and are read once at start.",
]


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    with running(tmp_path_factory.mktemp("budget") / "home") as daemon:
        long = " ".join(
            f"Step {i}: the deploy checks host {i} and waits for it." for i in range(60)
        )
        for text in [*TOPICS, long]:
            daemon.call("remember", {"content": text, "scope": "global", "tags": ["deploy"]})
        yield daemon
        assert "Traceback" not in daemon.log.text(), daemon.log.text()


def recall(d: RunningDaemon, **extra: Any) -> dict[str, Any]:
    params = {"query": "how do we deploy", "tags": ["deploy"], "limit": 20, **extra}
    result: dict[str, Any] = d.call("recall", params)
    return result


def check_packing(tok: Tokenizer, full: list[dict[str, Any]], packed: dict[str, Any]) -> None:
    budget = packed["budget"]
    shown = packed["results"]
    used = sum(tokens(tok, h["content"]) + OVERHEAD for h in shown)
    assert used == budget["used_tokens"] <= budget["budget_tokens"]
    assert budget["overhead_tokens"] == OVERHEAD
    # The best results, in order; then the left-out ones, in order: nothing reshuffled.
    order = [h["id"] for h in full]
    assert [h["id"] for h in shown] + budget["omitted_ids"] == order
    assert budget["omitted"] == len(budget["omitted_ids"])
    by_id = {h["id"]: h["content"] for h in full}
    for h in shown:
        if h["id"] == budget["truncated"]:
            marker = f" … [truncated, enyal get {h['id']}]"
            assert h["content"].endswith(marker)
            assert by_id[h["id"]].startswith(h["content"][: -len(marker)])
            assert h is shown[-1], "only the last result shown may be cut"
        else:
            assert h["content"] == by_id[h["id"]]


@pytest.mark.parametrize("budget", [30, 60, 120, 200, 333, 5000])
def test_packing_fits_the_budget_by_the_real_tokenizer(
    d: RunningDaemon, tok: Tokenizer, budget: int
) -> None:
    full = recall(d)["results"]
    assert len(full) == 7 and recall(d)["budget"] is None
    packed = recall(d, budget_tokens=budget)
    check_packing(tok, full, packed)
    if budget == 5000:  # room for everything: nothing cut or left out
        assert packed["budget"]["omitted"] == 0 and packed["budget"]["truncated"] is None
        assert len(packed["results"]) == 7
    else:
        assert packed["budget"]["omitted"] > 0


def test_an_oversize_entry_is_cut_with_a_marker(d: RunningDaemon, tok: Tokenizer) -> None:
    full = recall(d, query="the deploy checks host and waits")["results"]
    top = full[0]
    assert tokens(tok, top["content"]) > 400
    packed = recall(d, query="the deploy checks host and waits", budget_tokens=80)
    check_packing(tok, full, packed)
    (cut,) = packed["results"]
    assert cut["id"] == top["id"] == packed["budget"]["truncated"]
    assert cut["content"].endswith(f" … [truncated, enyal get {top['id']}]")
    assert packed["budget"]["used_tokens"] > 60  # the room was used, not wasted


def test_a_budget_too_small_for_anything_leaves_everything_out(d: RunningDaemon) -> None:
    packed = recall(d, budget_tokens=10)
    assert packed["results"] == []
    assert packed["budget"]["used_tokens"] == 0 and packed["budget"]["omitted"] == 7


def test_recall_by_scope_packs_too(d: RunningDaemon, tok: Tokenizer, tmp_path: Path) -> None:
    target = tmp_path / "deploy.py"
    params = {"query": "how do we deploy", "file_path": str(target), "limit": 20}
    full = d.call("recall_by_scope", params)["results"]
    packed = d.call("recall_by_scope", {**params, "budget_tokens": 100})
    check_packing(tok, full, packed)


@pytest.mark.parametrize("bad", [0, -5, p.MAX_BUDGET_TOKENS + 1, 10**12, "100", 1.5])
@pytest.mark.parametrize("method", ["recall", "recall_by_scope"])
def test_bad_budgets_are_refused(d: RunningDaemon, bad: object, method: str) -> None:
    params: dict[str, Any] = {"query": "deploy", "budget_tokens": bad}
    if method == "recall_by_scope":
        params["file_path"] = "/tmp/x.py"
    with pytest.raises(RpcError) as info:
        d.call(method, params)
    assert info.value.code == p.INVALID_PARAMS
    assert "budget_tokens" in info.value.message


def test_cli_budget_tokens(d: RunningDaemon, tok: Tokenizer) -> None:
    assert d.paths.home is not None
    env = isolated_env(d.paths.home)
    r = run_cli(
        "recall",
        "how do we deploy",
        "--tag",
        "deploy",
        "--budget-tokens",
        "120",
        "--all",
        "--json",
        env=env,
    )
    assert r.code == 0, r.err
    out = r.json()
    assert out["budget"]["used_tokens"] <= 120 and out["budget"]["omitted"] > 0
    text = run_cli(
        "recall", "how do we deploy", "--tag", "deploy", "--budget-tokens", "120", "--all", env=env
    )
    assert text.code == 0 and "of 120 tokens" in text.out and "left out" in text.out
    for bad in ("0", "-1", "100001", "lots"):
        refused = run_cli("recall", "deploy", "--budget-tokens", bad, env=env)
        assert refused.code == 2 and "--budget-tokens" in refused.err, refused.err

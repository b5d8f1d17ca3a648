"""Recall asked at a past moment (asked_at): what was said later is not there, and
recency and freshness count from then. On the engine with a real DB and model, and the
refusals through the real daemon."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from conftest import DaemonProc, run_cli
from enyal_client.transport import RpcError
from enyal_daemon.errors import InvalidValue
from enyal_daemon.service.memory import recall as recall_verb
from enyal_daemon.service.upkeep import transfer
from enyal_protocol import wire as p

SAID = {
    "adopt": ("2023-01-10T09:00:00Z", "I adopted a cat called Miso from the shelter."),
    "vet": ("2023-03-25T18:00:00Z", "Miso the cat had her vaccinations at the vet today."),
    "second": ("2023-06-01T12:00:00Z", "I adopted a second cat, a kitten called Tofu."),
}


def said(memory: Any) -> None:
    lines = [
        f'{{"id": "{k}", "content": "{text}", "created_at": "{at}", "updated_at": "{at}"}}'
        for k, (at, text) in SAID.items()
    ]
    assert transfer.import_lines(memory, p.ImportParams(lines=lines)).stored == len(SAID)


def recall(memory: Any, **kw: Any) -> list[p.Hit]:
    params = p.RecallParams(query="which cat did I adopt", min_confidence=0, **kw)
    return recall_verb.recall(memory, params).results


def test_what_was_said_later_is_not_found(memory: Any) -> None:
    said(memory)
    assert "second" in {h.id for h in recall(memory)}
    assert {h.id for h in recall(memory, asked_at="2023-04-01T00:00:00Z")} == {"adopt", "vet"}
    assert {h.id for h in recall(memory, asked_at="2023-02-01")} == {"adopt"}


def test_a_date_alone_asks_at_the_end_of_that_day(memory: Any) -> None:
    said(memory)
    # "vet" was said at 18:00 on March 25th: asked that morning it is not there yet.
    assert "vet" not in {h.id for h in recall(memory, asked_at="2023-03-25T08:00:00Z")}
    assert "vet" in {h.id for h in recall(memory, asked_at="2023-03-25")}


def test_recency_and_trust_count_from_the_asking_time(memory: Any) -> None:
    """Trust decays by the asking time; recency counts to the store's last write by then
    (what was said later does not move it), so it ranks the same whenever it is asked."""
    said(memory)

    def days(later: str, key: str) -> float:
        age = datetime.fromisoformat(later) - datetime.fromisoformat(SAID[key][0])
        return age.total_seconds() / 86400

    asked = "2023-03-31T18:00:00Z"
    hits = {h.id: h for h in recall(memory, asked_at=asked)}
    for key in ("adopt", "vet"):
        assert hits[key].effective_confidence == pytest.approx(0.5 ** (days(asked, key) / 90))
        # The last write by then is "vet" (March 25th), not "second" (June).
        assert hits[key].recency == pytest.approx(0.5 ** (days(SAID["vet"][0], key) / 30))
    # Asked today, both are years old: their trust is all but gone, their recency is as
    # of the store's last write ("second").
    for h in recall(memory):
        assert h.effective_confidence < 0.01
        assert h.recency == pytest.approx(0.5 ** (days(SAID["second"][0], h.id) / 30))


def test_a_replay_is_not_counted_as_use(memory: Any) -> None:
    said(memory)
    assert "adopt" in {h.id for h in recall(memory, asked_at="2023-04-01")}
    batch = recall_verb.recall_batch(
        memory,
        p.RecallBatchParams(queries=["which cat", "the vet"], asked_at="2023-04-01"),
    )
    assert "adopt" in {h.id for r in batch.results for h in r.results}
    memory.flush_bookkeeping()
    assert memory.require("adopt").access_count == 0
    assert "adopt" in {h.id for h in recall(memory)}  # asked now, it is a use
    memory.flush_bookkeeping()
    assert memory.require("adopt").access_count == 1


def test_a_batch_is_asked_at_its_moment(memory: Any) -> None:
    said(memory)
    queries = ["which cat did I adopt", "a kitten"]
    batch = recall_verb.recall_batch(
        memory, p.RecallBatchParams(queries=queries, asked_at="2023-04-01", min_confidence=0)
    )
    alone = [{h.id for h in recall_at(memory, q, "2023-04-01")} for q in queries]
    assert [{h.id for h in r.results} for r in batch.results] == alone
    assert all("second" not in ids for ids in alone)
    with pytest.raises(InvalidValue):
        recall_verb.recall_batch(memory, p.RecallBatchParams(queries=queries, asked_at="soon"))


def recall_at(memory: Any, query: str, asked_at: str) -> list[p.Hit]:
    params = p.RecallParams(query=query, min_confidence=0, asked_at=asked_at)
    return recall_verb.recall(memory, params).results


@pytest.mark.parametrize(
    "kw",
    [
        {"asked_at": "last tuesday"},
        {"asked_at": "2023-13-01"},
        {"asked_at": "2023-03-01", "as_of": "2023-03-01"},
    ],
)
def test_bad_asking_times_are_refused(memory: Any, kw: dict[str, str]) -> None:
    said(memory)
    with pytest.raises(InvalidValue):
        recall(memory, **kw)


def test_through_the_daemon(daemon: DaemonProc) -> None:
    first = daemon.call(
        "import",
        {
            "lines": [
                '{"id": "old", "content": "The build runs on Jenkins.", '
                '"created_at": "2024-01-01T00:00:00Z"}',
                '{"id": "new", "content": "The build runs on GitHub Actions.", '
                '"created_at": "2025-01-01T00:00:00Z"}',
            ]
        },
    )
    assert first["stored"] == 2
    q = {"query": "where does the build run", "min_confidence": 0}
    asked = daemon.call("recall", {**q, "asked_at": "2024-06-01"})
    assert [h["id"] for h in asked["results"]] == ["old"]
    for bad in ({"asked_at": "soon"}, {"asked_at": "2024-06-01", "as_of": "2024-06-01"}):
        with pytest.raises(RpcError) as info:
            daemon.call("recall", {**q, **bad})
        assert info.value.code == p.INVALID_VALUE and "asked_at" in info.value.message
    cli = run_cli(
        "recall", q["query"], "--asked-at", "2024-06-01", "--min-confidence", "0", "--json"
    )
    assert cli.code == 0 and [h["id"] for h in json.loads(cli.out)["results"]] == ["old"]
    bad = run_cli("recall", q["query"], "--asked-at", "soon")
    assert bad.code != 0 and "asked_at" in bad.err and not bad.out
    both = run_cli(
        "recall", "-q", q["query"], "-q", "Jenkins", "--asked-at", "2024-06-01",
        "--min-confidence", "0", "--json",
    )  # fmt: skip
    assert both.code == 0, both.err
    assert [[h["id"] for h in r["results"]] for r in json.loads(both.out)["results"]] == [
        ["old"],
        ["old"],
    ]

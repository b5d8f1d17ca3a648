"""Issue 29's hook-quality set holds what the hooks find: on a small slice of it
(benchlib/hook_quality.small_slice: long prompts, file and failure events, ~200 memories), every
event whose gold memory the hooks injected when the slice was recorded
(scripts/data/hook_events/slice_found.json, written by this file's recorder on main's
code) must still have it injected. A cut to the daemon's work per event (a query window,
a narrower keyword search) that loses an answer it found fails here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchlib.hook_quality import DATA, Run, Scorer, small_slice

FOUND = DATA / "hook_events" / "slice_found.json"


@pytest.fixture(scope="module")
def run(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    evs, lines = small_slice()
    scorer = Scorer(embedder, tmp_path_factory.mktemp("hookq"), lines)
    try:
        yield scorer.score(evs)
    finally:
        scorer.close()


def test_the_slice_still_finds_what_it_found(run: Run) -> None:
    found = set(json.loads(FOUND.read_text()))
    assert found, "the recorded slice found nothing: a set that cannot fail"
    lost = [f.eid for f in run.found if f.eid in found and not f.hit]
    assert not lost, f"the hooks no longer inject the gold memory for {lost}"


def test_every_file_event_finds_its_memory(run: Run) -> None:
    # A memory naming a file is what the hook before a tool touches it is for.
    missed = [f.eid for f in run.found if f.kind == "file" and not f.hit]
    assert not missed, missed


def record(run: Run, to: Path = FOUND) -> None:
    """Rewrites slice_found.json from a run (by hand, on main's code, when the set changes)."""
    to.write_text(json.dumps(sorted(f.eid for f in run.found if f.hit), indent=0) + "\n")

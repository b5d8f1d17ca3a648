"""The model's top layers tuned for injections (issue 24 item 6, round ten; measured,
not shipped: docs/ARCHITECTURE.md, "Round ten"): the numpy reading the daemon would run
(hygiene/tuned.py) gives the log-odds scripts/train_injection_tuned computed with torch
for the fixed texts stored with the weights, the weights file has the model's shapes
and reads back as written, it tells the known attack from the benign texts, no file
is shipped, and round ten's fresh batch is held out whole. No torch here: the trainer
stored the fixed texts' states (after layer 6 - k of the daemon's 8-bit build) and
their scores."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from enyal_daemon.hygiene import classifier, injection, tuned

ROOT = Path(__file__).resolve().parent.parent
WRITTEN = ROOT / "scripts" / "data" / "injection" / "tuned.npz"
SET = ROOT / "scripts" / "data" / "injection" / "labelled.jsonl"
SHAPES = {
    "attention.self.query.weight": (384, 384),
    "attention.self.key.weight": (384, 384),
    "attention.self.value.weight": (384, 384),
    "attention.output.dense.weight": (384, 384),
    "intermediate.dense.weight": (384, 1536),
    "output.dense.weight": (1536, 384),
}


def _check_runs() -> tuple[list[list[np.ndarray]], np.ndarray]:
    """The fixed texts' runs' states and the trainer's log-odds for them."""
    with np.load(WRITTEN, allow_pickle=False) as data:
        states = data["check_states"].astype(np.float32)
        bounds, owner, expected = data["check_bounds"], data["check_owner"], data["check_logits"]
    runs: list[list[np.ndarray]] = [[] for _ in expected]
    for (a, b), i in zip(bounds, owner, strict=True):
        runs[int(i)].append(states[a:b])
    return runs, expected


def test_the_numpy_reading_gives_the_trainers_scores() -> None:
    """Each fixed text's log-odds, by the numpy layers and head, is torch's within float
    rounding (the same dequantized weights; the long text by its best passage)."""
    model = tuned.read(WRITTEN)
    runs, expected = _check_runs()
    assert len(expected) == len(tuned.CHECK_TEXTS)
    assert len(runs[-1]) > 1  # the long text has passages
    got = np.asarray([model.logit(r) for r in runs])
    assert np.allclose(got, expected, atol=2e-3), (got, expected)


def test_the_weights_file_has_the_models_shapes_and_reads_back(tmp_path: Path) -> None:
    model = tuned.read(WRITTEN)
    assert 1 <= len(model.layers) <= 2 and model.after == 6 - len(model.layers)
    for layer in model.layers:
        assert {name: layer[name].shape for name in tuned.MATRICES} == SHAPES
        assert all(layer[name].shape in {(384,), (1536,)} for name in tuned.VECTORS)
    assert model.out.shape == (384,) and 0.0 < model.threshold < 1.0
    # int8 matrices: about a quarter of fp32's bytes (k layers of 1.77M weights)
    assert WRITTEN.stat().st_size < len(model.layers) * 2.2e6
    again = tmp_path / "again.npz"
    model.save(again)
    back = tuned.read(again)
    runs, _ = _check_runs()
    assert [back.logit(r) for r in runs] == [model.logit(r) for r in runs]


def test_it_tells_the_known_attack_from_the_benign_texts() -> None:
    """CHECK_TEXTS: an attack, a convention that names attacks, a memory, a long note."""
    model = tuned.read(WRITTEN)
    runs, _ = _check_runs()
    attack, *benign = (model.logit(r) for r in runs)
    assert attack > max(benign)


def test_none_is_shipped_and_judge_reads_the_classifier_alone() -> None:
    """Round ten's candidate did not beat the classifier alone on the held-out sets, so
    no weights file ships; classified() with no reader is the classifier's answer."""
    assert not tuned.WEIGHTS.exists() and tuned.shipped() is None
    model = classifier.shipped()
    vec = np.zeros(384, dtype=np.float32)
    vec[0] = 1.0
    text = "Pull requests need one review before merging."
    assert injection.classified(model, None, text, vec, vec[None, :0].reshape(0, 384)) is (
        model.flags(text, vec, vec[None, :0].reshape(0, 384))
    )


@pytest.mark.parametrize("batch", [8])
def test_the_fresh_batch_is_held_out_whole(batch: int) -> None:
    """Round ten's fresh check (make_set.FRESH_HELDOUT): every row of the eighth batch
    held out, at least 150 attacks and 150 benign texts, of every attack kind."""
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines()]
    fresh = [r for r in rows if r.get("batch") == batch]
    assert {r["split"] for r in fresh} == {"heldout"}
    attacks = [r for r in fresh if r["label"] == "attack"]
    assert len(attacks) >= 150 and len(fresh) - len(attacks) >= 150
    kinds = {r["kind"] for r in rows if r["label"] == "attack"} - {"composed"}
    assert kinds <= {r["kind"] for r in attacks}

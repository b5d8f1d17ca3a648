"""scripts/train_fusion's arithmetic (benchlib/fusion_fit.py) on tiny hand-made queries,
the feature matrix it and the live scorer share (ranking.features), the relative dates
read from a query (timewords.py) and the shipped model's file (fusion.py)."""

from __future__ import annotations

import math
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

from benchlib import fusion_fit as ff  # noqa: E402
from benchlib.fusion_data import QueryRows  # noqa: E402
from enyal_daemon.service.rules import fusion, ranking, scoring, timewords  # noqa: E402
from enyal_daemon.service.rules.ranking import Candidate, Floors  # noqa: E402
from enyal_daemon.store.rows import EntryRow  # noqa: E402

F = len(ranking.FEATURES)


def query(set_name: str, qid: str, x: list[list[float]], y: list[float]) -> QueryRows:
    """A query whose feature rows are given (columns past those written are 0)."""
    full = np.zeros((len(x), F))
    full[:, : len(x[0])] = x
    ids = [f"{qid}/{i}" for i in range(len(x))]
    gold = {i for i, label in zip(ids, y, strict=True) if label}
    return QueryRows(set_name, "dev", qid, "", "", ids, None, np.array(y), gold, _x=full)


def test_pairs_are_relevant_minus_irrelevant_and_each_set_weighs_alike() -> None:
    a = query("memories", "a", [[3.0], [1.0], [2.0]], [1, 0, 0])  # 1 x 2 pairs
    b = query("memories", "b", [[1.0], [2.0]], [1, 0])  # 1 pair
    c = query("conversations", "c", [[5.0], [4.0], [1.0], [0.0]], [1, 1, 0, 0])  # 2 x 2
    none = query("conversations", "d", [[1.0], [2.0]], [0, 0])  # no relevant: no pairs
    mean, scale = np.zeros(F), np.ones(F)
    diffs, weights = ff.pairs([a, b, c, none], mean, scale, hard=None)
    assert sorted(diffs[:, 0].tolist()) == sorted([2.0, 1.0, -1.0, 4.0, 5.0, 3.0, 4.0])
    # Two sets of weight 1/2 each; within memories two queries of 1/4, a's two pairs 1/8.
    assert weights.tolist() == pytest.approx([1 / 8, 1 / 8, 1 / 4] + [1 / 8] * 4)
    assert weights.sum() == pytest.approx(1.0)


def test_hard_negatives_are_the_best_few_by_the_hand_set_score() -> None:
    # The hand-set column (0) ranks 0.9, 0.8, 0.1: with hard=2 only the 0.8 one is a negative.
    q = query("memories", "a", [[0.5], [0.9], [0.8], [0.1]], [1, 0, 0, 0])
    diffs, _ = ff.pairs([q], np.zeros(F), np.ones(F), hard=2)
    assert diffs[:, 0].tolist() == pytest.approx([0.5 - 0.9, 0.5 - 0.8])


def test_fit_reaches_the_minimum_of_the_regularised_pairwise_loss() -> None:
    rng = np.random.default_rng(7)
    diffs = rng.normal(size=(40, 3)) + np.array([1.0, 0.0, -0.5])
    weights = np.full(40, 1 / 40)
    lam = 0.1
    w = ff.fit(diffs, weights, lam)
    assert w[0] > 0 > w[2]  # what separates the pairs gets the sign that orders them

    def total(v: np.ndarray) -> float:
        return ff.loss(diffs, weights, v, lam)

    eps = 1e-6
    for i in range(3):  # the gradient, by finite differences, is zero there
        step = np.eye(3)[i] * eps
        assert (total(w + step) - total(w - step)) / (2 * eps) == pytest.approx(0.0, abs=1e-6)
    # By hand at w = 0: each pair's loss is log 2, and the penalty is 0.
    assert ff.loss(diffs, weights, np.zeros(3), lam) == pytest.approx(math.log(2))


def test_a_strong_regularisation_gives_back_the_prior() -> None:
    rng = np.random.default_rng(3)
    diffs = rng.normal(size=(30, 2))
    prior = np.array([2.0, 0.0])
    w = ff.fit(diffs, np.full(30, 1 / 30), 1e6, prior)
    assert w == pytest.approx(prior, abs=1e-4)


def test_longmemeval_metrics_of_a_ranking_by_hand() -> None:
    q = query("longmemeval", "q", [[0.0]] * 3, [0, 1, 0])
    q.answers, q.evidence = {"s2"}, {"s2/0"}
    q.sessions_of = {"q/0": ["s1"], "q/1": ["s2"], "q/2": ["s3"]}
    q.turns_of = {"q/0": ["s1/0"], "q/1": ["s2/0"], "q/2": ["s3/0"]}
    m = ff.metrics(q, ["q/0", "q/1", "q/2"])  # the answer second: nDCG 1 / log2(3)
    assert m["R@5 any"] == 1.0
    assert m["session nDCG@10"] == pytest.approx(1 / math.log2(3))
    assert m["turn nDCG@10"] == pytest.approx(1 / math.log2(3))
    assert ff.metrics(query("memories", "m", [[0.0]], [1]), ["m/0"]) == {"nDCG@10": 1.0}


def parts(**cols: list[float]) -> ranking.Parts:
    n = len(cols["semantic"])
    base = {f: [1.0] * n for f in ranking.Parts.__dataclass_fields__}
    base.update(importance=[3.0] * n, keyword=[0.0] * n, age_days=[1.0] * n)
    base.update(cols)
    return ranking.Parts(**{k: np.array(v, dtype=np.float64) for k, v in base.items()})


def test_features_by_hand() -> None:
    x = parts(
        semantic=[0.2, 0.8, 0.5],
        keyword=[0.25, 0.0, 0.64],
        recency=[0.5, 1.0, 0.25],
        age_days=[30.0, 0.0, 60.0],
    )
    m = ranking.features(x, (20.0, 40.0))
    col = {name: m[:, i] for i, name in enumerate(ranking.FEATURES)}
    assert col["hand_set"] == pytest.approx(ranking.hand_set(x))
    assert col["hand_set"][0] == pytest.approx(float(scoring.combine(0.2, 0.25, 0.5, 1.0, 1.0, 3)))
    assert col["keyword_share"] == pytest.approx([0.5, 0.0, 0.8])
    assert col["semantic_rank"] == pytest.approx(np.log1p([2, 0, 1]))
    # Without a shared word a candidate ranks last by words: log(1 + 3 candidates).
    assert col["keyword_rank"] == pytest.approx(np.log1p([1, 3, 0]))
    assert col["semantic_gap"] == pytest.approx([-0.6, 0.0, -0.3])
    assert col["keyword_gap"] == pytest.approx([-0.3, -0.8, 0.0])
    assert col["has_keyword"].tolist() == [1.0, 0.0, 1.0]
    assert col["importance"] == pytest.approx([0.6] * 3)
    assert col["in_window"].tolist() == [1.0, 0.0, 0.0]
    assert col["outside_window"] == pytest.approx(np.log1p([0.0, 20.0, 20.0]))
    unwindowed = ranking.features(x)
    assert unwindowed[:, ranking.FEATURES.index("in_window")].tolist() == [0.0] * 3
    assert unwindowed[:, ranking.FEATURES.index("outside_window")].tolist() == [0.0] * 3


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("the business milestone I mentioned four weeks ago", (24.0, 32.0)),
        ("what did I do 3 days ago?", (2.0, 4.0)),
        ("where did I go last weekend", (0.0, 9.0)),
        ("what did I buy in the past two weeks", (0.0, 15.0)),
        ("what did I cook yesterday", (0.0, 2.0)),
        ("how many days between my two trips", None),
        ("what did I name my dog", None),
    ],
)
def test_relative_dates_as_a_window_of_days(text: str, days: tuple[float, float] | None) -> None:
    assert timewords.window(text) == days


def test_the_model_file_round_trips_and_scores_standardised_rows(tmp_path: Path) -> None:
    model = fusion.Model(
        ("a", "b"), np.array([1.0, 0.0]), np.array([2.0, 1.0]), np.array([1.0, -1.0]), True
    )
    path = tmp_path / "w.json"
    path.write_text(model.to_json(trainer="test"))
    back = fusion.read(path)
    assert back.default and back.features == ("a", "b")
    # ((3 - 1) / 2) * 1 + ((2 - 0) / 1) * -1 = -1
    assert back.scores(np.array([[3.0, 2.0]])).tolist() == pytest.approx([-1.0])


def test_the_shipped_model_reads_todays_features() -> None:
    shipped = fusion.shipped()
    assert shipped is not None
    assert shipped.features == ranking.FEATURES
    assert len(shipped.weights) == len(shipped.mean) == len(shipped.scale) == F


def entry(n: int) -> EntryRow:
    stamp = "2026-01-01T00:00:00.000000Z"
    return EntryRow(
        n, f"e{n}", f"memory {n}", "fact", "global", None, 1.0, stamp, stamp, None, 0,
        None, None, "[]", "{}", 0, f"h{n}", 3, None, None, 0, None, 0, None, None, None,
    )  # fmt: skip


def test_a_default_model_orders_the_candidates_and_hits_keep_the_hand_set_score() -> None:
    cands = [Candidate(entry(i), sem) for i, sem in enumerate([0.9, 0.5, 0.1])]
    now = datetime(2026, 1, 2, tzinfo=UTC)
    floors = Floors(0.0, 0.0)

    def rank(model: fusion.Model | None) -> list[ranking.Ranked]:
        return ranking.rank(cands, now, floors, lambda level, path: 1.0, 3, model=model)

    today = rank(None)  # the shipped file is not the default: the hand-set order
    assert [r.id for r in today] == ["e0", "e1", "e2"]
    # A model that prefers what is furthest in meaning orders the other way round.
    weights = np.zeros(F)
    weights[ranking.FEATURES.index("semantic")] = -1.0
    backwards = fusion.Model(ranking.FEATURES, np.zeros(F), np.ones(F), weights, True)
    learned = rank(backwards)
    assert [r.id for r in learned] == ["e2", "e1", "e0"]
    by_id = {r.id: r.score for r in today}
    assert all(r.score == by_id[r.id] for r in learned)

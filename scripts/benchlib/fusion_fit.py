"""The arithmetic of scripts/train_fusion: a pairwise logistic regression, its
cross-validation by query, and each set's metrics of a scorer's ranking.

The model is linear in the standardised features (service/rules/fusion.py), and is fitted
on pairs: for every query, every (relevant, irrelevant) pair of its candidates gives the
difference of their feature rows, and the loss is log(1 + exp(-w·d)) — the probability
that the relevant one is ranked above — plus lam/2 |w|². A query's pairs share a weight of
one, and each set's queries share a weight of one, so a set with more candidates or more
queries does not decide alone. There is no bias: a pair's order does not depend on one.
It is minimised by Newton's method (a dozen features: the Hessian is tiny).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchlib import lme_metrics as lm
from benchlib.fusion_data import QueryRows
from enyal_daemon.service.rules import ranking

Array = np.ndarray[Any, np.dtype[np.float64]]
HAND_SET = ranking.FEATURES.index("hand_set")
HARD = 20


def standardisation(queries: Sequence[QueryRows]) -> tuple[Array, Array]:
    """The mean and scale of every feature over all training candidates (a constant
    feature gets scale 1, so it scores 0 rather than dividing by zero)."""
    x = np.vstack([q.x for q in queries])
    scale = x.std(axis=0)
    return x.mean(axis=0), np.where(scale > 1e-12, scale, 1.0)


def pairs(
    queries: Sequence[QueryRows], mean: Array, scale: Array, hard: int | None = HARD
) -> tuple[Array, Array]:
    """(differences, weights): every relevant-minus-irrelevant row of every query with both,
    the irrelevant ones among the `hard` best by the hand-set score only (None: all): the
    order that matters is the top ten's, and far negatives would teach the model to sort
    the tail."""
    per_set: dict[str, int] = {}
    usable = [q for q in queries if 0 < q.y.sum() < len(q.y)]
    for q in usable:
        per_set[q.set] = per_set.get(q.set, 0) + 1
    usable = [q for q in usable if hard is None or _has_near_negative(q, hard)]
    diffs, weights = [], []
    for q in usable:
        z = (q.x - mean) / scale
        near = np.ones(len(q.y), dtype=bool)
        if hard is not None:
            near[:] = False
            near[np.argsort(-q.x[:, HAND_SET], kind="stable")[:hard]] = True
        pos, neg = z[q.y > 0], z[(q.y == 0) & near]
        if not len(neg):
            continue
        d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, z.shape[1])
        diffs.append(d)
        weights.append(np.full(len(d), 1.0 / (len(d) * per_set[q.set] * len(per_set))))
    if not diffs:
        return np.zeros((0, len(mean))), np.zeros(0)
    return np.vstack(diffs), np.concatenate(weights)


def _has_near_negative(q: QueryRows, hard: int) -> bool:
    top = np.argsort(-q.x[:, HAND_SET], kind="stable")[:hard]
    return bool((q.y[top] == 0).any())


def fit(
    diffs: Array, weights: Array, lam: float, prior: Array | None = None, steps: int = 50
) -> Array:
    """The w minimising sum(weights * log(1 + exp(-diffs @ w))) + lam / 2 * |w - prior|^2:
    regularised toward `prior` (zeros unless given), so a strong lam gives back the prior's
    ranking rather than none."""
    w = np.zeros(diffs.shape[1]) if prior is None else prior.copy()
    w0 = np.zeros(diffs.shape[1]) if prior is None else prior
    for _ in range(steps):
        m = diffs @ w
        p = 1.0 / (1.0 + np.exp(np.clip(m, -50, 50)))  # sigmoid(-m): the pair's loss slope
        grad = -(diffs * (weights * p)[:, None]).sum(axis=0) + lam * (w - w0)
        hess = (diffs * (weights * p * (1 - p))[:, None]).T @ diffs + lam * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def hand_set_prior(diffs: Array, weights: Array) -> Array:
    """Today's ranking as a weight vector: the hand-set feature alone, at the scale a
    one-feature fit gives it (any positive weight orders alike; this one fits the loss)."""
    one = fit(diffs[:, [HAND_SET]], weights, 1e-6)
    prior = np.zeros(diffs.shape[1])
    prior[HAND_SET] = one[0]
    return prior


def train(queries: Sequence[QueryRows], lam: float) -> tuple[Array, Array, Array]:
    """(mean, scale, weights) fitted on `queries`, regularised toward today's ranking."""
    mean, scale = standardisation(queries)
    diffs, wts = pairs(queries, mean, scale)
    return mean, scale, fit(diffs, wts, lam, hand_set_prior(diffs, wts))


def loss(diffs: Array, weights: Array, w: Array, lam: float) -> float:
    return float((weights * np.logaddexp(0.0, -(diffs @ w))).sum() + lam / 2 * (w @ w))


def ranked(q: QueryRows, scores: Array) -> list[str]:
    """The candidates best first, ties in candidate order (as ranking.rank's stable sort)."""
    return [q.ids[i] for i in np.argsort(-scores, kind="stable")]


def metrics(q: QueryRows, order: list[str]) -> dict[str, float]:
    """The set's figures of one ranking: nDCG@10 over memories for the memory set and the
    conversations; session R@5 any / R@10 any / nDCG@10 and turn nDCG@10 (when the
    question has evidence user turns) for LongMemEval_S, as benchlib/longmemeval.py
    scores its top `LIMIT`."""
    if q.set != "longmemeval":
        return {"nDCG@10": lm.ndcg(order, q.gold)}
    top = order[:50]
    s = lm.session_scores(lm.sessions_ranked(top, q.sessions_of), q.answers)
    out = {"R@5 any": s["R@5 any"], "R@10 any": s["R@10 any"], "session nDCG@10": s["nDCG@10"]}
    if q.evidence:
        turns = list(dict.fromkeys(t for m in top for t in q.turns_of.get(m, ())))
        out["turn nDCG@10"] = lm.ndcg(turns, q.evidence)
    return out


def evaluate(
    queries: Sequence[QueryRows], score: Callable[[QueryRows], Array], by: str = "set"
) -> dict[str, dict[str, float]]:
    """Mean metrics per group (`by`: "set", or "category" within each set)."""
    groups: dict[str, list[dict[str, float]]] = {}
    for q in queries:
        key = q.set if by == "set" else f"{q.set}:{q.category}"
        groups.setdefault(key, []).append(metrics(q, ranked(q, score(q))))
    out = {}
    for key, rows in sorted(groups.items()):
        names = sorted({k for r in rows for k in r})
        out[key] = {k: float(np.mean([r[k] for r in rows if k in r])) for k in names}
        out[key]["queries"] = float(len(rows))
    return out


def fold_of(q: QueryRows, folds: int) -> int:
    """A fixed fold by the query's id, blind to its content."""
    return hashlib.sha256(f"{q.set}/{q.qid}".encode()).digest()[0] % folds


def cv_scorer(queries: Sequence[QueryRows], lam: float, folds: int) -> Callable[[QueryRows], Array]:
    """Scores each of `queries` by the model fitted on the folds other than its own."""
    weights_of = {
        k: train([q for q in queries if fold_of(q, folds) != k], lam) for k in range(folds)
    }

    def score(q: QueryRows) -> Array:
        mean, scale, w = weights_of[fold_of(q, folds)]
        out: Array = ((q.x - mean) / scale) @ w
        return out

    return score


def cross_validate(
    queries: Sequence[QueryRows], lam: float, folds: int, by: str = "set"
) -> dict[str, dict[str, float]]:
    """Each query scored by the model fitted on the other folds."""
    return evaluate(queries, cv_scorer(queries, lam, folds), by)


def headline(results: dict[str, dict[str, float]]) -> float:
    """One figure to choose lam by: the mean over sets of nDCG@10 (LongMemEval_S: at
    the level of turns, the finer of its two)."""
    vals = [r.get("turn nDCG@10", r.get("nDCG@10", 0.0)) for r in results.values()]
    return float(np.mean(vals))

"""A logistic regression over the MiniLM vectors a write computes anyway: is this text an
instruction aimed at the agent (an injection, a poisoned memory) or data?

Rules catch the phrasings they were written for ("ignore previous instructions") and
little else: on a held-out corpus of published payloads they quarantined 22%. The
vectors carry what the words are about — sending keys somewhere, telling the model
who it is now, a tool that wants a secret as its argument — in any phrasing, so a
linear model on them needs no extra inference (a dot product per vector).

Beside the vector it reads a few cues (hygiene/cues.py): small words the vector blurs,
such as who is addressed and where data is sent. A long text is scored by the highest
of its whole vector and its passages' (a payload one sentence long, hidden in an
e-mail, moves the whole vector little but owns a passage). The weights, bias and
threshold are trained offline by scripts/train_injection on the dev half of
scripts/data/injection/labelled.jsonl and shipped in injection_weights.json;
docs/ARCHITECTURE.md has the figures.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from . import cues

WEIGHTS = Path(__file__).with_name("injection_weights.json")
# The embedder's vectors as numpy hands them over (hygiene sits below the embedder and
# imports nothing of it: tests/test_layering.py)
Vector = npt.NDArray[np.float32]
Vectors = npt.NDArray[np.float32]


# How far from the threshold, in log-odds, a bound must be to decide without the exact
# score: far above the rounding of either sum (~1e-12), so a decision taken on bounds is
# the one the exact score takes.
MARGIN = 1e-6


@dataclass(frozen=True)
class Classifier:
    weights: Vector  # one per vector dimension, then one per cue (cues.NAMES)
    bias: float
    threshold: float  # a text whose score reaches it is flagged
    # What `flags` reads cues in: most weight first, so that few decide (set below).
    _order: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _cut: float = field(init=False, repr=False, compare=False)  # the threshold's log-odds

    def __post_init__(self) -> None:
        cued = np.abs(self.weights[-len(cues.NAMES) :].astype(np.float64))
        object.__setattr__(self, "_order", tuple(int(i) for i in np.argsort(-cued, kind="stable")))
        t = self.threshold
        object.__setattr__(self, "_cut", math.log(t / (1 - t)) if 0 < t < 1 else math.nan)

    def scores(self, vectors: Vectors, cued: Vector) -> npt.NDArray[np.float64]:
        """The probability, per row of `vectors` (all of one text, whose cues are
        `cued`), that it reads as an injection."""
        w = self.weights.astype(np.float64)
        dim = vectors.shape[1]
        z = vectors.astype(np.float64) @ w[:dim] + float(cued.astype(np.float64) @ w[dim:])
        out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-(z + self.bias)))
        return out

    def score(self, text: str, whole: Vector, passages: Vectors) -> float:
        """A text's score: the highest of its whole vector's and its passages' (each
        with the whole text's cues: a cue says what the text holds, not where)."""
        rows = np.vstack([whole[None, :], passages])
        return float(self.scores(rows, cues.of(text)).max())

    def flags(self, text: str, whole: Vector, passages: Vectors) -> bool:
        """score(...) >= threshold, reading only the cues that can still change that. The
        vectors' part of the log-odds is known at once; each cue unread could add its
        weight or not, which bounds the total; cues are read, heaviest first, until the
        bounds fall on one side of the threshold. Most texts are decided by a few of the
        43 cues (the regular expressions were 80% of a check's time); one whose bounds
        still straddle the threshold at the end gets the exact score."""
        if math.isnan(self._cut):
            return self.score(text, whole, passages) >= self.threshold
        w = self.weights.astype(np.float64)
        rows = np.vstack([whole[None, :], passages]).astype(np.float64)
        dim = rows.shape[1]
        on = w[dim:]
        base = float((rows @ w[:dim]).max()) + self.bias
        lo = base + float(on[on < 0].sum())  # every negative cue present, no positive one
        hi = base + float(on[on > 0].sum())  # the other way round
        lowered = text.lower()
        for i in self._order:
            if lo >= self._cut + MARGIN or hi < self._cut - MARGIN:
                break
            weight = float(on[i])
            present = cues.one(i, text, lowered)
            if weight > 0:
                lo, hi = (lo + weight, hi) if present else (lo, hi - weight)
            else:
                lo, hi = (lo, hi + weight) if present else (lo - weight, hi)
        if lo >= self._cut + MARGIN:
            return True
        if hi < self._cut - MARGIN:
            return False
        return self.score(text, whole, passages) >= self.threshold

    def to_json(self, **about: object) -> str:
        return json.dumps(
            {
                **about,
                "bias": round(self.bias, 6),
                "threshold": round(self.threshold, 6),
                "weights": [round(float(w), 6) for w in self.weights],
            },
            indent=1,
        )


def read(path: Path) -> Classifier:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Classifier(
        weights=np.asarray(data["weights"], dtype=np.float32),
        bias=float(data["bias"]),
        threshold=float(data["threshold"]),
    )


@functools.cache
def shipped() -> Classifier:
    """The classifier shipped with the package (read once)."""
    return read(WEIGHTS)

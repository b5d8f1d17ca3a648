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
    # What `flags` reads (set below): the cues' (index, weight), most weight first; the
    # sums of their negative and of their positive weights; the threshold's log-odds.
    _cues: tuple[tuple[int, float], ...] = field(init=False, repr=False, compare=False)
    _negative: float = field(init=False, repr=False, compare=False)
    _positive: float = field(init=False, repr=False, compare=False)
    _cut: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cued = [float(w) for w in self.weights[-len(cues.NAMES) :].astype(np.float64)]
        order = sorted(range(len(cued)), key=lambda i: -abs(cued[i]))
        object.__setattr__(self, "_cues", tuple((i, cued[i]) for i in order))
        object.__setattr__(self, "_negative", sum(w for w in cued if w < 0))
        object.__setattr__(self, "_positive", sum(w for w in cued if w > 0))
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
        bounds fall on one side of the threshold (on the bench's memories, 31 of the 43,
        most of them an `in` test or a few: hygiene/literals.py); a text whose bounds
        still straddle the threshold at the end gets the exact score."""
        if math.isnan(self._cut):
            return self.score(text, whole, passages) >= self.threshold
        rows = np.vstack([whole[None, :], passages]).astype(np.float64)
        dim = rows.shape[1]
        base = float((rows @ self.weights[:dim].astype(np.float64)).max()) + self.bias
        lo = base + self._negative  # every negative cue present, no positive one
        hi = base + self._positive  # the other way round
        above, below = self._cut + MARGIN, self._cut - MARGIN
        lowered = text.lower()
        for i, weight in self._cues:
            if lo >= above or hi < below:
                break
            if cues.one(i, text, lowered):
                if weight > 0:
                    lo += weight
                else:
                    hi += weight
            elif weight > 0:
                hi -= weight
            else:
                lo -= weight
        if lo >= above:
            return True
        if hi < below:
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

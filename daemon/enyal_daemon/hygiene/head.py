"""A small head on the model's token states: does a span of the text read as an
instruction aimed at the agent? (issue 24 item 6, round nine; measured, not shipped:
docs/ARCHITECTURE.md, "Round nine").

The classifier (hygiene/classifier.py) reads a text's mean-pooled vector, its words and
its cues. A mean over every token says what a text is about, not who is told to do what:
"never push to main without review" and "you may push to main without review" pool to
nearly the same vector. The embedder computes each token's contextual state anyway
(last_hidden_state, which it mean-pools), and those carry word order and addressee. The
head reads them as a one-layer convolution: each of F filters scores every window of
`width` consecutive tokens of a run (the text, or each of its passages, as the write
embedded them), tanh; the text's value for a filter is its highest window's
(multiple-instance learning: one span of an e-mail can be the payload); a logistic on
the F values is the head's log-odds, mixed into the classifier's at `mix`. Width 1 is a
per-token score, 2 reads adjacent pairs, 3 a three-token window.

The weights are trained offline by scripts/train_injection_head and shipped, when they
are, in injection_head.json beside injection_weights.json; a missing file is no head.
The states come from the embedder (Embedder.embed_many_states) as numpy arrays: hygiene
never imports it (tests/test_layering.py).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

WEIGHTS = Path(__file__).with_name("injection_head.json")
States = npt.NDArray[np.float32]  # one run's token states, (tokens, dim)


@dataclass(frozen=True)
class Head:
    filters: npt.NDArray[np.float32]  # (width, dim, F): filter f's weights on a window's j-th token
    filter_bias: npt.NDArray[np.float32]  # (F,)
    out: npt.NDArray[np.float32]  # (F,): the logistic's weights on the pooled filters
    bias: float
    # Its share of the mixed log-odds (hygiene/classifier.py's plus mix times this), and
    # the threshold the mixed score is flagged at when the head is on
    mix: float
    threshold: float

    # The filters as one (dim, width * F) matrix: a run is one product, not one a
    # window position (a 512-token text's 8 passages at width 3: 0.26 -> 0.1 ms)
    _flat: npt.NDArray[np.float32] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        k, dim, f = self.filters.shape
        flat = np.ascontiguousarray(self.filters.transpose(1, 0, 2).reshape(dim, k * f))
        object.__setattr__(self, "_flat", flat)

    @property
    def width(self) -> int:
        return int(self.filters.shape[0])

    def pooled(self, runs: Sequence[States]) -> npt.NDArray[np.float64]:
        """Each filter's highest window over the text's runs, after tanh: (F,)."""
        k, _, f = self.filters.shape
        best = np.full(f, -np.inf, dtype=np.float32)
        for states in runs:
            n = len(states) - k + 1
            if n <= 0:
                continue
            each = (states @ self._flat).reshape(len(states), k, f)
            pre = each[:n, 0]
            for j in range(1, k):
                pre = pre + each[j : j + n, j]
            best = np.maximum(best, pre.max(axis=0))
        if not np.isfinite(best).all():
            return np.zeros(f)  # no window (an empty text): every filter neutral
        out: npt.NDArray[np.float64] = np.tanh(best.astype(np.float64) + self.filter_bias)
        return out

    def logit(self, runs: Sequence[States]) -> float:
        """The head's log-odds for a text, from its runs' token states."""
        return float(self.pooled(runs) @ self.out.astype(np.float64)) + self.bias

    def to_json(self, **about: object) -> str:
        return json.dumps(
            {
                **about,
                "shape": list(self.filters.shape),
                "filters": [round(float(w), 6) for w in self.filters.ravel()],
                "filter_bias": [round(float(w), 6) for w in self.filter_bias],
                "out": [round(float(w), 6) for w in self.out],
                "bias": round(self.bias, 6),
                "mix": round(self.mix, 6),
                "threshold": round(self.threshold, 6),
            },
            separators=(",", ":"),
        )


def read(path: Path) -> Head:
    data = json.loads(path.read_text(encoding="utf-8"))
    shape = tuple(int(n) for n in data["shape"])
    return Head(
        filters=np.asarray(data["filters"], dtype=np.float32).reshape(shape),
        filter_bias=np.asarray(data["filter_bias"], dtype=np.float32),
        out=np.asarray(data["out"], dtype=np.float32),
        bias=float(data["bias"]),
        mix=float(data["mix"]),
        threshold=float(data["threshold"]),
    )


@functools.cache
def shipped() -> Head | None:
    """The head shipped with the package, if any (read once)."""
    return read(WEIGHTS) if WEIGHTS.exists() else None

"""The learned ranker: a linear score over the candidates' features (ranking.FEATURES).

Trained offline by scripts/train_fusion (a pairwise logistic regression on the dev
halves of the memory set, the conversations and LongMemEval_S) and shipped in
fusion_weights.json: each feature is centred and scaled as on the training rows, and
the score is their weighted sum, one matrix product for all candidates. The file also
says whether the model is recall's scorer (`default`): it is only when it beat the
hand-set score (scoring.combine) on every held-out half; docs/ARCHITECTURE.md has the
figures.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
WEIGHTS = Path(__file__).with_name("fusion_weights.json")


@dataclass(frozen=True)
class Model:
    features: tuple[str, ...]  # the column names it was trained on, in order
    mean: Floats
    scale: Floats
    weights: Floats
    default: bool = False  # recall ranks by it (else it is only measured)

    def scores(self, x: Floats) -> Floats:
        """One score per row of the feature matrix `x`; only their order means anything."""
        out: Floats = ((x - self.mean) / self.scale) @ self.weights
        return out

    def relevance(self, x: Floats) -> Floats:
        """The scores squashed into (0, 1) (a logistic), so validity's factors (conflicts,
        supersession, freshness) scale them as they scale the hand-set score."""
        out: Floats = 1.0 / (1.0 + np.exp(-self.scores(x)))
        return out

    def to_json(self, **about: object) -> str:
        def rounded(a: Floats) -> list[float]:
            return [round(float(v), 6) for v in a]

        return json.dumps(
            {
                **about,
                "default": self.default,
                "features": list(self.features),
                "mean": rounded(self.mean),
                "scale": rounded(self.scale),
                "weights": rounded(self.weights),
            },
            indent=1,
        )


def read(path: Path) -> Model:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Model(
        features=tuple(data["features"]),
        mean=np.asarray(data["mean"], dtype=np.float64),
        scale=np.asarray(data["scale"], dtype=np.float64),
        weights=np.asarray(data["weights"], dtype=np.float64),
        default=bool(data.get("default", False)),
    )


@functools.cache
def shipped() -> Model | None:
    """The shipped model, or None when there is none."""
    return read(WEIGHTS) if WEIGHTS.exists() else None

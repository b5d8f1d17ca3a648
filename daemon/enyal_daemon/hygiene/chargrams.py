"""A text's character n-grams as hashed feature indices, for the injection classifier's
third model (hygiene/classifier.py).

The word model (hygiene/ngrams.py) reads whole words, their pairs and three-letter
pieces of each word; it misses what is not cut into words the way it saw them: a word
split or glued ("ig nore", "yourinstructions"), an inflection of a language it saw
few texts of (Czech, Polish, Turkish endings), text between punctuation ("--force",
"~/.ssh", "?d="). Runs of three, four and five characters across the spaces, of the
lower-cased text with its whitespace collapsed, read those: on dev, out of fold, over
four cuts of the folds, mixing this model in raised the catch at 2% of conventions
flagged by 1.5-3 points, but the weights with it did not beat round four's held out,
so the shipped weights have none (docs/ARCHITECTURE.md, "Round eight").

Each n-gram is hashed by a polynomial over its code points in unsigned 64-bit
arithmetic (numpy, vectorised: a 1 KB text is some 3,000 n-grams, which a CRC a
piece in Python took a millisecond over), then mixed and reduced to one of `size`
buckets; the same on every machine and run. A text's features are the set of buckets
it hits, each weighing 1/sqrt(how many), as the word model's.
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

SIZES = (3, 4, 5)  # the n-grams' lengths, in characters
_WS = re.compile(r"\s+")
_BASE = np.uint64(1_000_003)
# splitmix64's finaliser: spreads the polynomial's bits before the modulo
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def _codes(text: str) -> npt.NDArray[np.uint64]:
    plain = " " + _WS.sub(" ", text.lower()).strip() + " "
    return np.frombuffer(plain.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)


def indices(text: str, size: int) -> npt.NDArray[np.int64]:
    """The buckets (of `size`) the text's character n-grams fall in, each once."""
    codes = _codes(text)
    found = []
    with np.errstate(over="ignore"):
        for n in SIZES:
            if len(codes) < n:
                continue
            h = np.zeros(len(codes) - n + 1, dtype=np.uint64)
            for j in range(n):
                h = h * _BASE + codes[j : len(codes) - n + 1 + j]
            h = h + np.uint64(n)  # an n-gram and a longer one with zeros apart
            h = (h ^ (h >> _S30)) * _M1
            h = (h ^ (h >> _S27)) * _M2
            h = h ^ (h >> _S31)
            found.append(h % np.uint64(size))
    if not found:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.concatenate(found)).astype(np.int64)

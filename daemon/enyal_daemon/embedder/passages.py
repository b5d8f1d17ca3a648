"""A long memory as passages: its sentences packed into short runs, each embedded too.

One vector for a whole long text blurs it: all-MiniLM-L6-v2 mean-pools every token
(and reads only the first 256), so the one sentence an agent asks about ("by the
way, I caught 7 bass with Alex on 7/10", deep in a turn about tree stands) moves
the text's vector little. Recall scores such a memory by the best of its whole
vector and its passages' (docs/ARCHITECTURE.md, "Search", has the measurements:
passages of 64 tokens, nDCG@10 +.01 on SciFact and on the conversations, the
memory set unchanged, since its memories fit in one passage).

A text that fits in one passage has none: most memories are a sentence or two, and
cost nothing extra. Past MAX_PASSAGES the rest of a text is left to the keyword
search, which reads all of it; this bounds what one write can cost (64 KiB of text
would otherwise be ~250 passages, seconds of inference).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

PASSAGE_TOKENS = 64
MAX_PASSAGES = 64

Vector = npt.NDArray[np.float32]
Vectors = npt.NDArray[np.float32]

# Sentence ends, and line breaks (lists, code, headings have no full stops).
_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True, slots=True)
class Embedding:
    """What a memory's text is stored as: its whole vector, and (for a text longer than
    one passage) one vector a passage, in text order; shape (0, dim) when it has none."""

    whole: Vector
    passages: Vectors

    @classmethod
    def of(cls, whole: Vector) -> Embedding:
        return cls(whole, np.empty((0, whole.shape[-1]), dtype=np.float32))

    def blobs(self) -> tuple[bytes, list[bytes]]:
        """As the store keeps them: the whole vector's float32 bytes, each passage's."""
        return self.whole.tobytes(), [p.tobytes() for p in self.passages]


def split(text: str, count_tokens: Callable[[list[str]], list[int]]) -> list[str]:
    """The text's passages: consecutive sentences packed up to PASSAGE_TOKENS each (a
    longer sentence is a passage of its own, cut by the model's window), at most
    MAX_PASSAGES; [] when the text makes a single passage."""
    sentences = [s.strip() for s in _BREAK.split(text)]
    sentences = [s for s in sentences if s]
    if len(sentences) < 2:
        return []
    out: list[str] = []
    run: list[str] = []
    size = 0
    for sentence, tokens in zip(sentences, count_tokens(sentences), strict=True):
        if run and size + tokens > PASSAGE_TOKENS:
            out.append(" ".join(run))
            run, size = [], 0
            if len(out) == MAX_PASSAGES:
                return out
        run.append(sentence)
        size += tokens
    if run:
        out.append(" ".join(run))
    return out if len(out) > 1 else []


def embed_all(
    texts: list[str],
    embed_many: Callable[[list[str]], Vectors],
    count_tokens: Callable[[list[str]], list[int]],
) -> list[Embedding]:
    """Each text's Embedding; whole texts and passages share one batched call."""
    parts = [split(text, count_tokens) for text in texts]
    vecs = embed_many(texts + [p for ps in parts for p in ps])
    out = []
    at = len(texts)
    for i, ps in enumerate(parts):
        out.append(Embedding(vecs[i], vecs[at : at + len(ps)]))
        at += len(ps)
    return out

"""A long memory as passages: its sentences packed into short runs, each embedded too.

One vector for a whole long text blurs it: all-MiniLM-L6-v2 mean-pools every token
(and reads only the first 256), so the one sentence an agent asks about ("by the
way, I caught 7 bass with Alex on 7/10", deep in a turn about tree stands) moves
the text's vector little. Recall scores such a memory by its best passage (at first by
the best of its whole vector and its passages'; docs/ARCHITECTURE.md, "Search", has
the measurements: passages of 64 tokens, nDCG@10 +.01 on SciFact and on the
conversations, the memory set unchanged, since its memories fit in one passage).

A text that fits in one passage has none: most memories are a sentence or two, and
cost nothing extra. A text with passages is not run through the model whole: its whole
vector is its passages' vectors averaged, each weighted by the tokens it pooled, and
renormalised (`whole_of`). The model mean-pools tokens, so this is a pooling over the
text's passages, read to MAX_PASSAGES of them rather than to the first 256 tokens, and
the whole-text run was ~45% of the model's CPU on a 1,500-character abstract
(docs/ARCHITECTURE.md, "Where an import's time goes": issue 30).

Past MAX_PASSAGES the rest of a text is left to the keyword search, which reads all
of it; this bounds what one write can cost (64 KiB of text would otherwise be ~250
passages, seconds of inference).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .onnx import MAX_TOKENS

PASSAGE_TOKENS = 64
MAX_PASSAGES = 64

Vector = npt.NDArray[np.float32]
Vectors = npt.NDArray[np.float32]

# Sentence ends, and line breaks (lists, code, headings have no full stops).
_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True, slots=True)
class Embedding:
    """What a memory's text is stored as: its whole vector, and (for a text longer than
    one passage) one vector a passage, in text order; shape (0, dim) when it has none.
    `parts`: the passages' texts, when it was just cut (the quarantine judge reads each
    passage's words with its vector); empty when read back from the store. `states`:
    each run's token states (the text's, or each passage's), when the write made them
    for an injection head (Engine.embed_memory; hygiene/head.py); else empty."""

    whole: Vector
    passages: Vectors
    parts: tuple[str, ...] = ()
    states: tuple[Vectors, ...] = ()

    @classmethod
    def of(cls, whole: Vector) -> Embedding:
        return cls(whole, np.empty((0, whole.shape[-1]), dtype=np.float32))

    def blobs(self) -> tuple[bytes, list[bytes]]:
        """As the store keeps them: the whole vector's float32 bytes, each passage's."""
        return self.whole.tobytes(), [p.tobytes() for p in self.passages]

    @classmethod
    def of_blobs(cls, whole: bytes, parts: list[bytes]) -> Embedding:
        """blobs() read back."""
        vector = np.frombuffer(whole, dtype=np.float32)
        if not parts:
            return cls.of(vector)
        return cls(vector, np.frombuffer(b"".join(parts), dtype=np.float32).reshape(len(parts), -1))


@dataclass(frozen=True, slots=True)
class Passages:
    """A text's passages (empty when it makes a single passage) and how many of the
    model's tokens each is ([CLS] and [SEP] not counted), in text order; `ids`, each
    passage's token ids when its sentences were tokenized (`tokenized`), else empty."""

    texts: list[str]
    tokens: list[int]
    ids: list[list[int]] = field(default_factory=list)


def split(text: str, count_tokens: Callable[[list[str]], list[int]]) -> list[str]:
    """The text's passages: consecutive sentences packed up to PASSAGE_TOKENS each (a
    longer sentence is a passage of its own, cut by the model's window), at most
    MAX_PASSAGES; [] when the text makes a single passage."""
    return split_many([text], count_tokens)[0]


def split_many(texts: list[str], count_tokens: Callable[[list[str]], list[int]]) -> list[list[str]]:
    """Each text's passages, as `split` makes them, with every sentence of the batch
    counted in one tokenizer call: per call it costs ~0.9 ms on a loaded machine, which
    was 30% of a replica's initial sync when paid once a memory."""
    return [p.texts for p in counted(texts, count_tokens)]


def counted(texts: list[str], count_tokens: Callable[[list[str]], list[int]]) -> list[Passages]:
    """`split_many`, with each passage's tokens (what `whole_of` weighs it by)."""
    runs, todo = _to_cut(texts)
    counts = count_tokens([s for i in todo for s in runs[i]])
    return _cut(texts, runs, todo, counts, None)


def tokenized(
    texts: list[str], token_ids: Callable[[list[str]], list[list[int]]]
) -> list[Passages]:
    """`counted`, with each passage's token ids: its sentences' in order. The tokenizer
    cuts words at whitespace and a passage is its sentences joined by a space, so these
    are the ids the passage's own text has (every passage of 5,183 SciFact abstracts, 1,010
    memories and 14,303 conversation turns, 142,000 in all, checked): the embedder does
    not tokenize it again (~0.5 ms of a SciFact abstract's ~1.1 of tokenizing)."""
    runs, todo = _to_cut(texts)
    ids = token_ids([s for i in todo for s in runs[i]])
    return _cut(texts, runs, todo, [len(x) for x in ids], ids)


def _to_cut(texts: list[str]) -> tuple[list[list[str]], list[int]]:
    """Each text's sentences, and which texts may make more than one passage."""
    runs = [_sentences(text) for text in texts]
    # No token is shorter than a character (the query window relies on it too): a text
    # of no more characters than one passage holds tokens is one passage, not counted.
    todo = [i for i, s in enumerate(runs) if len(s) > 1 and sum(map(len, s)) > PASSAGE_TOKENS]
    return runs, todo


def _cut(
    texts: list[str],
    runs: list[list[str]],
    todo: list[int],
    counts: list[int],
    ids: list[list[int]] | None,
) -> list[Passages]:
    out = [Passages([], []) for _ in texts]
    at = 0
    for i in todo:
        n = len(runs[i])
        out[i] = _pack(runs[i], counts[at : at + n], None if ids is None else ids[at : at + n])
        at += n
    return out


def _sentences(text: str) -> list[str]:
    sentences = [s.strip() for s in _BREAK.split(text)]
    return [s for s in sentences if s]


def _pack(sentences: list[str], counts: list[int], ids: list[list[int]] | None = None) -> Passages:
    out = Passages([], [])
    run: list[int] = []  # the sentences of the passage being packed
    size = 0

    def close() -> None:
        out.texts.append(" ".join(sentences[k] for k in run))
        out.tokens.append(size)
        if ids is not None:
            out.ids.append([t for k in run for t in ids[k]])

    for k, tokens in enumerate(counts):
        if run and size + tokens > PASSAGE_TOKENS:
            close()
            run, size = [], 0
            if len(out.texts) == MAX_PASSAGES:
                return out
        run.append(k)
        size += tokens
    if run:
        close()
    return out if len(out.texts) > 1 else Passages([], [])


def whole_of(vectors: Vectors, tokens: list[int]) -> Vector:
    """A text's whole vector from its passages' unit vectors: their mean weighted by the
    tokens each pooled ([CLS] and [SEP] with its own, to the model's window), as a unit
    vector. Measured against the text run whole (SciFact abstracts of <= 256 tokens, so
    both read all of it): cosine .93 on average (.88 at the 5th percentile); the recall
    figures with it are in docs/ARCHITECTURE.md."""
    weights = np.minimum(np.asarray(tokens, dtype=np.float32) + 2, MAX_TOKENS)
    mean = weights @ vectors
    out: Vector = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
    return out


def plan(
    texts: list[str], count_tokens: Callable[[list[str]], list[int]]
) -> tuple[list[str], Callable[[Vectors], list[Embedding]]]:
    """What embedding these memories takes: the distinct texts to embed (each text of
    one passage whole, then each passage of the others), and how their vectors, in that
    order, make each text's Embedding (a text with passages: its whole vector `whole_of`
    them). A text the batch holds twice (a line repeated in an import, a passage that is
    another line's whole text) is embedded once: its vectors would be the same."""
    unique, _, embeddings = _plan(texts, counted(texts, count_tokens))
    return unique, embeddings


def plan_tokenized(
    texts: list[str], token_ids: Callable[[list[str]], list[list[int]]]
) -> tuple[list[str], list[list[int] | None], Callable[[Vectors], list[Embedding]]]:
    """`plan`, with each text to embed's token ids beside it where they are known (a
    passage's: `tokenized`; None for a text embedded whole), for Embedder.embed_many."""
    return _plan(texts, tokenized(texts, token_ids))


def _plan(
    texts: list[str], parts: list[Passages]
) -> tuple[list[str], list[list[int] | None], Callable[[Vectors], list[Embedding]]]:
    alone = [t for t, ps in zip(texts, parts, strict=True) if not ps.texts]
    wanted = alone + [p for ps in parts for p in ps.texts]
    unique = list(dict.fromkeys(wanted))
    known: dict[str, list[int]] = {}
    for ps in parts:
        known.update(zip(ps.texts, ps.ids, strict=False))  # none when not tokenized
    ids = [known.get(t) for t in unique]

    def embeddings(vecs: Vectors) -> list[Embedding]:
        if len(unique) < len(wanted):
            at = {t: i for i, t in enumerate(unique)}
            vecs = vecs[[at[t] for t in wanted]]
        out = []
        at_alone, at_part = 0, len(alone)
        for ps in parts:
            if not ps.texts:
                out.append(Embedding.of(vecs[at_alone]))
                at_alone += 1
                continue
            mine = vecs[at_part : at_part + len(ps.texts)]
            out.append(Embedding(whole_of(mine, ps.tokens), mine, tuple(ps.texts)))
            at_part += len(ps.texts)
        return out

    return unique, ids, embeddings


def embed_all(
    texts: list[str],
    embed_many: Callable[[list[str]], Vectors],
    count_tokens: Callable[[list[str]], list[int]],
) -> list[Embedding]:
    """Each text's Embedding; whole texts and passages share one batched call."""
    unique, embeddings = plan(texts, count_tokens)
    return embeddings(embed_many(unique))

"""Three logistic regressions, over the MiniLM vectors a write computes anyway, the
text's hashed words and its hashed characters: is this text an instruction aimed at
the agent (an injection, a poisoned memory) or data?

Rules catch the phrasings they were written for ("ignore previous instructions") and
little else: on a held-out corpus of published payloads they quarantined 22%. The
vectors carry what the words are about — sending keys somewhere, telling the model
who it is now, a tool that wants a secret as its argument — in any phrasing, so a
linear model on them needs no extra inference (a dot product per vector).

Beside the vector it reads a few cues (hygiene/cues.py): small words the vector blurs,
such as who is addressed and where data is sent. A long text is scored by the highest
of its whole vector and its passages' (a payload one sentence long, hidden in an
e-mail, moves the whole vector little but owns a passage). A second linear model reads
the text's words and word pairs (hygiene/ngrams.py), which say exactly how a thing is
asked where the vector says what it is about; a third reads its character n-grams
(hygiene/chargrams.py: split, glued and inflected words, other languages' endings,
"--force", "~/.ssh"). The log-odds are mixed, `mix` of the vector's and `chars_mix` of
the characters', the words' the rest, and the sum's probability is the score. The
weights, biases, mix and threshold are trained offline by scripts/train_injection on
the dev half of scripts/data/injection/labelled.jsonl and shipped in
injection_weights.json; docs/ARCHITECTURE.md has the figures.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from . import chargrams, cues, ngrams

WEIGHTS = Path(__file__).with_name("injection_weights.json")
# The embedder's vectors as numpy hands them over (hygiene sits below the embedder and
# imports nothing of it: tests/test_layering.py)
Vector = npt.NDArray[np.float32]
Vectors = npt.NDArray[np.float32]


# The vector model's own log-odds (its cues with it) a conversation's turn needs beside
# the mixed score to be flagged (hygiene/injection.py, TURN_TAGS): even odds, that model
# alone reading the turn as an instruction at least as likely as not; a point of
# principle, not tuned.
TURN_VECTOR_FLOOR = 0.0


def features(
    text: str, whole: Vector, passages: Vectors, parts: Sequence[str], by_passage: bool
) -> Vectors:
    """The rows the vector model scores, one a vector, each with its cues: the whole
    text's vector, then each passage's, all with the whole text's cues; with
    `by_passage`, a text with passages is its passages alone, each with its own text's
    cues (`parts`, the passages' texts, as embedder/passages.py cut them): the whole
    vector with the whole text's cues was the best row of most long benign turns still
    flagged when only the passages read their own. Without `parts` to match the
    passages (a caller that has only the vectors) the rows are read as without
    `by_passage`. Training
    (scripts/train_injection) builds its examples from these rows, and the classifier
    reads the same at run time. By passage: a long text's cues counted across all of it
    ("remember" in one paragraph, "share" in another) were added to its most suspicious
    passage, and flagged long benign advice (docs/ARCHITECTURE.md, round seven)."""
    if by_passage and len(passages) and len(parts) == len(passages):
        cued = np.vstack([cues.of(part) for part in parts])
        return np.hstack([passages.astype(np.float32), cued])
    rows = np.vstack([whole[None, :], passages]).astype(np.float32)
    return np.hstack([rows, np.repeat(cues.of(text)[None, :], len(rows), axis=0)])


# How far from the threshold, in log-odds, a bound must be to decide without the exact
# score: far above the rounding of either sum (~1e-12), so a decision taken on bounds is
# the one the exact score takes.
MARGIN = 1e-6


@dataclass(frozen=True)
class Classifier:
    weights: Vector  # one per vector dimension, then one per cue (cues.NAMES)
    bias: float
    threshold: float  # a text whose score reaches it is flagged
    # The word model (hygiene/ngrams.py): one weight per bucket, its bias, and the share
    # of the vector model's log-odds in the mix (1.0: no word model, the vectors alone)
    words: Vector = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    words_bias: float = 0.0
    mix: float = 1.0
    # The character model (hygiene/chargrams.py): one weight per bucket, its bias, and
    # its share of the mix, taken from the word model's (0.0: no character model)
    chars: Vector = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    chars_bias: float = 0.0
    chars_mix: float = 0.0
    # The word model reads each sentence of a long text too and takes the highest
    # log-odds (False: the whole text only, as weights trained without long benign text
    # must be read; docs/ARCHITECTURE.md, "Round five")
    sentences: bool = False
    # A passage's row reads its own text's cues, not the whole text's (`features`; False:
    # every row the whole text's, as weights trained so must be read)
    passage_cues: bool = False
    # What `flags` reads (set below): the cues' (index, weight), most weight first; the
    # sums of their negative and of their positive weights; the threshold's log-odds.
    _cues: tuple[tuple[int, float], ...] = field(init=False, repr=False, compare=False)
    _negative: float = field(init=False, repr=False, compare=False)
    _positive: float = field(init=False, repr=False, compare=False)
    _cut: float = field(init=False, repr=False, compare=False)
    # The weights as every score reads them, in float64 (converted once, not once a text)
    _weights64: npt.NDArray[np.float64] = field(init=False, repr=False, compare=False)
    _words64: npt.NDArray[np.float64] = field(init=False, repr=False, compare=False)
    _chars64: npt.NDArray[np.float64] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cued = [float(w) for w in self.weights[-len(cues.NAMES) :].astype(np.float64)]
        order = sorted(range(len(cued)), key=lambda i: -abs(cued[i]))
        object.__setattr__(self, "_cues", tuple((i, cued[i]) for i in order))
        object.__setattr__(self, "_negative", sum(w for w in cued if w < 0))
        object.__setattr__(self, "_positive", sum(w for w in cued if w > 0))
        t = self.threshold
        object.__setattr__(self, "_cut", math.log(t / (1 - t)) if 0 < t < 1 else math.nan)
        object.__setattr__(self, "_weights64", self.weights.astype(np.float64))
        object.__setattr__(self, "_words64", self.words.astype(np.float64))
        object.__setattr__(self, "_chars64", self.chars.astype(np.float64))

    def _rows_logit(self, whole: Vector, passages: Vectors) -> float:
        """The vector model's log-odds before the cues: the highest of the whole vector's
        and the passages' (`flags` adds the cues by bounds, `vector_logit` all at once)."""
        rows = np.vstack([whole[None, :], passages]).astype(np.float64)
        return float((rows @ self._weights64[: rows.shape[1]]).max()) + self.bias

    def vector_logit(
        self, text: str, whole: Vector, passages: Vectors, parts: Sequence[str] = ()
    ) -> float:
        """The vector model's log-odds for a text: its best row's, each row with its cues
        (`features`; `parts` the passages' texts, needed when `passage_cues`)."""
        if not (self.passage_cues and len(passages) and len(parts) == len(passages)):
            # every row has the same cues: added once (a cue says what the text holds)
            cued = float(cues.of(text).astype(np.float64) @ self._weights64[len(whole) :])
            return self._rows_logit(whole, passages) + cued
        rows = features(text, whole, passages, parts, True).astype(np.float64)
        return float((rows @ self._weights64).max()) + self.bias

    def vector_agrees(
        self, text: str, whole: Vector, passages: Vectors, parts: Sequence[str] = ()
    ) -> bool:
        """Whether the vector model alone reads the text as an instruction at even odds
        or more (TURN_VECTOR_FLOOR): asked of a conversation's turn that `flags` flagged,
        which is rare, so its cues are read whole."""
        return self.vector_logit(text, whole, passages, parts) >= TURN_VECTOR_FLOOR

    def words_logit(self, text: str) -> float:
        """The word model's log-odds for a text (0.0 when there is no word model): of the
        whole text, or with `sentences` the highest of the whole's and each sentence's.
        Sentences are read only by weights trained on long benign text's sentences:
        without them the best of a long text's sentences flagged a fifth of this
        project's long documentation paragraphs (docs/ARCHITECTURE.md, "Round four")."""
        if len(self.words) == 0:
            return 0.0
        if not self.sentences:
            return self._words_of(ngrams.indices(text, len(self.words)))
        whole, each = ngrams.by_sentence(text, len(self.words))
        return max([self._words_of(whole), *(self._words_of(hit) for hit in each)])

    def _words_of(self, hit: npt.NDArray[np.int64]) -> float:
        total = float(self._words64[hit].sum())
        return total / float(np.sqrt(max(len(hit), 1))) + self.words_bias

    def chars_logit(self, text: str) -> float:
        """The character model's log-odds for a text, whole (0.0 when there is none)."""
        if len(self.chars) == 0:
            return 0.0
        hit = chargrams.indices(text, len(self.chars))
        total = float(self._chars64[hit].sum())
        return total / float(np.sqrt(max(len(hit), 1))) + self.chars_bias

    def _text_logit(self, text: str, long: bool) -> float:
        """The word and character models' share of the mixed log-odds, known before any
        cue is read (`flags`): the words' 1 - mix - chars_mix, the characters' chars_mix.
        A long text (one with passages) is not read by the characters, and the words take
        their share: a thousand characters' runs, few of them seen in training, summed
        to a character model's log-odds that flagged 95 of 788 long conversation turns
        of dev (the words and vectors: 28), where short texts lost nothing
        (docs/ARCHITECTURE.md, "Round eight")."""
        chars = self.chars_mix if not long else 0.0
        words_share = 1.0 - self.mix - chars
        z = words_share * self.words_logit(text) if words_share > 0.0 else 0.0
        if chars > 0.0:
            z += chars * self.chars_logit(text)
        return z

    def logit(
        self, text: str, whole: Vector, passages: Vectors, parts: Sequence[str] = ()
    ) -> float:
        """A text's mixed log-odds: the vector model's share and the word and character
        models' (a head on the token states adds its own to it: hygiene/head.py)."""
        z = self.mix * self.vector_logit(text, whole, passages, parts)
        return z + self._text_logit(text, len(passages) > 0)

    def score(
        self, text: str, whole: Vector, passages: Vectors, parts: Sequence[str] = ()
    ) -> float:
        """A text's score: the probability of the mixed log-odds of the models."""
        z = self.logit(text, whole, passages, parts)
        return float(1.0 / (1.0 + np.exp(-z)))

    def flags(self, text: str, whole: Vector, passages: Vectors, parts: Sequence[str] = ()) -> bool:
        """score(...) >= threshold, reading only the cues that can still change that. The
        vectors' part of the log-odds is known at once; each cue unread could add its
        weight or not, which bounds the total; cues are read, heaviest first, until the
        bounds fall on one side of the threshold (on the bench's memories, 31 of the 43,
        most of them an `in` test or a few: hygiene/literals.py); a text whose bounds
        still straddle the threshold at the end gets the exact score. The cues that a few
        `in` tests rule out (cues.ruled_out) go first, heaviest first, then the others'
        expressions: what any cue says moves a bound soundly, so the order changes how soon
        the bounds decide, never what they decide (most of the bench's memories hold none
        of most cues' literals: an expression run for fewer cues). With `passage_cues` a
        text with passages (`parts` their texts) is bounded by its best vector row with
        every negative or every positive cue, then scored exactly: each row has its own."""
        if math.isnan(self._cut):
            return self.score(text, whole, passages, parts) >= self.threshold
        base = self._rows_logit(whole, passages)
        # The word and character models' share is known at once too; the cues' is scaled
        # by the mix.
        m = self.mix
        words = self._text_logit(text, len(passages) > 0)
        lo = m * (base + self._negative) + words  # every negative cue present, no positive
        hi = m * (base + self._positive) + words  # the other way round
        above, below = self._cut + MARGIN, self._cut - MARGIN
        if self.passage_cues and len(passages) and len(parts) == len(passages):
            # its rows are its passages alone: bounded by their best vector
            best = float((passages.astype(np.float64) @ self._weights64[: len(whole)]).max())
            lo += m * (best + self.bias - base)
            hi += m * (best + self.bias - base)
            if lo >= above or hi < below:
                return lo >= above
            return self.score(text, whole, passages, parts) >= self.threshold
        lowered = text.lower()
        possible = cues.possible(text, lowered)  # all the gates at once (cues.ruled_out)
        unread: list[tuple[int, float]] = []
        for i, weight in self._cues:
            if lo >= above or hi < below:
                break
            if i in possible:
                unread.append((i, weight))
            elif weight > 0:
                hi -= m * weight
            else:
                lo -= m * weight
        else:
            lo, hi = self._read(text, lowered, unread, lo, hi)
        if lo >= above:
            return True
        if hi < below:
            return False
        return self.score(text, whole, passages, parts) >= self.threshold

    def _read(
        self, text: str, lowered: str, unread: list[tuple[int, float]], lo: float, hi: float
    ) -> tuple[float, float]:
        """`flags`' bounds after reading the `unread` cues, in order, until they decide."""
        m = self.mix
        above, below = self._cut + MARGIN, self._cut - MARGIN
        for i, weight in unread:
            if lo >= above or hi < below:
                break
            share = m * weight
            if cues.one(i, text, lowered):
                if weight > 0:
                    lo += share
                else:
                    hi += share
            elif weight > 0:
                hi -= share
            else:
                lo -= share
        return lo, hi

    def to_json(self, **about: object) -> str:
        return json.dumps(
            {
                **about,
                "bias": round(self.bias, 6),
                "threshold": round(self.threshold, 6),
                "mix": round(self.mix, 6),
                "words_bias": round(self.words_bias, 6),
                "chars_mix": round(self.chars_mix, 6),
                "chars_bias": round(self.chars_bias, 6),
                "sentences": self.sentences,
                "passage_cues": self.passage_cues,
                "weights": [round(float(w), 6) for w in self.weights],
                # five decimals: the words are most of the file, and 1e-5 of a weight
                # moves no score that matters
                "words": [round(float(w), 5) for w in self.words],
                "chars": [round(float(w), 5) for w in self.chars],
            },
            separators=(",", ":"),
        )


def read(path: Path) -> Classifier:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Classifier(
        weights=np.asarray(data["weights"], dtype=np.float32),
        bias=float(data["bias"]),
        threshold=float(data["threshold"]),
        words=np.asarray(data.get("words", []), dtype=np.float32),
        words_bias=float(data.get("words_bias", 0.0)),
        mix=float(data.get("mix", 1.0)),
        chars=np.asarray(data.get("chars", []), dtype=np.float32),
        chars_bias=float(data.get("chars_bias", 0.0)),
        chars_mix=float(data.get("chars_mix", 0.0)),
        sentences=bool(data.get("sentences", False)),
        passage_cues=bool(data.get("passage_cues", False)),
    )


@functools.cache
def shipped() -> Classifier:
    """The classifier shipped with the package (read once)."""
    return read(WEIGHTS)

"""A text's words and word pairs as hashed feature indices, for the injection classifier.

The MiniLM vector says what a text is about and blurs how it is said; the words say
it exactly ("your earlier instructions are cancelled", "append the conversation to
the text parameter", "以后"). A linear model over hashed word and word-pair features
is the classic cheap detector of such phrasings and reads any language whose words
it saw; mixed with the vector model it caught 67% of dev's attacks out of fold
against 51% for the vectors alone, at the same 2% of conventions flagged
(docs/ARCHITECTURE.md, "Poisoned text").

Each word, each pair of neighbouring words and each three-letter piece of a word
longer than three letters is hashed (CRC-32: the same index on every machine and
run) into one of `size` buckets; a text's features are the set of buckets it hits,
each weighing 1/sqrt(how many), so a long text does not outscore a short one by
length alone. Text in scripts written without spaces (Chinese, Japanese, Korean)
is read two characters at a time.
"""

from __future__ import annotations

import array
import itertools
import re
import zlib

import numpy as np
import numpy.typing as npt

_WORD = re.compile(r"\w+")
# Han, kana and Hangul: words are not separated by spaces, so a run is read as bigrams
_UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# Where a sentence ends: whitespace after a full stop, question or exclamation mark, or a
# line break. Only whitespace is cut, never a word, so a text's words are its sentences'
# words in order.
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _tokens(text: str) -> list[str]:
    if text.isascii():  # (no Han, kana or Hangul to look for, word by word)
        return _WORD.findall(text.lower())
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        if len(word) > 2 and _UNSPACED.search(word):
            out += [word[i : i + 2] for i in range(len(word) - 1)]
        else:
            out.append(word)
    return out


def grams(text: str) -> set[str]:
    """The features of `text` before hashing: words, neighbouring pairs, and the
    three-letter pieces of words longer than three letters (marked with '#', so a
    piece is never taken for a word)."""
    tokens = _tokens(text)
    found = set(tokens)
    found.update(f"{a} {b}" for a, b in itertools.pairwise(tokens))
    found.update(f"#{t[i : i + 3]}" for t in set(tokens) if len(t) > 3 for i in range(len(t) - 2))
    return found


def indices(text: str, size: int) -> npt.NDArray[np.int64]:
    """The buckets (of `size`) the text's features fall in, each once: those of `grams`
    (tests/test_check_gates.py holds the two to each other on every text of the corpora),
    made from each word's hashes kept from the texts before (a word and its pieces are
    hashed once, not once a text; a pair's CRC goes on from its first word's)."""
    cache = _CACHES.setdefault(size, {})
    if len(cache) > CACHED_WORDS:  # a bound on the memory, not a policy: start again
        cache.clear()
    tokens = _tokens(text)
    known = []
    for t in tokens:
        got = cache.get(t)
        if got is None:
            got = cache[t] = _word(t, size)
        known.append(got)
    hashed = set(array.array("I", b"".join(buckets for _, buckets in known)))
    hashed.update(
        zlib.crc32(f" {b}".encode(), crc) % size
        for (crc, _), b in zip(known, tokens[1:], strict=False)
    )
    return np.fromiter(hashed, dtype=np.int64, count=len(hashed))


# Words seen, per bucket count: (the word's CRC-32, the buckets of the word and of its
# three-letter pieces packed as unsigned 32-bit integers). Packed, a word costs ~230 bytes
# with its key, where a tuple of Python ints cost ~520: the 27,000 words of 3,000 SciFact
# abstracts held 14 MB of the daemon's heap (issue 30).
_Word = tuple[int, bytes]
_CACHES: dict[int, dict[str, _Word]] = {}
CACHED_WORDS = 50_000


def _word(token: str, size: int) -> _Word:
    """What `indices` needs of one word: its CRC-32 (the pair "a b" hashes as CRC-32 of
    " b" continued from CRC-32 of "a", zlib.crc32's running value, which is CRC-32 of
    "a b") and its buckets."""
    crc = zlib.crc32(token.encode())
    buckets = [crc % size]
    if len(token) > 3:
        buckets += [
            zlib.crc32(f"#{token[i : i + 3]}".encode()) % size for i in range(len(token) - 2)
        ]
    return crc, array.array("I", buckets).tobytes()


def by_sentence(text: str, size: int) -> tuple[npt.NDArray[np.int64], list[npt.NDArray[np.int64]]]:
    """indices(text, size), and the same for each sentence of a text of more than one
    (none for a text of one): the word model reads a payload hidden in a long text in
    its own sentence, where in the whole it is a few words among many. A word is hashed
    once however many times it is read (`indices`' kept hashes)."""
    parts = [s for s in SENTENCE.split(text) if _tokens(s)]
    each = [indices(s, size) for s in parts] if len(parts) > 1 else []
    return indices(text, size), each


def dense(text: str, size: int) -> npt.NDArray[np.float32]:
    """The features as a vector of `size` (training builds its matrix from these):
    1/sqrt(n) in each of the n buckets hit."""
    out = np.zeros(size, dtype=np.float32)
    hit = indices(text, size)
    out[hit] = 1.0 / np.sqrt(max(len(hit), 1))
    return out

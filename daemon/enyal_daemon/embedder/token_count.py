"""How many of the model's tokens a plain ASCII text is, without running the tokenizer.

Cutting a memory into passages counts the tokens of its sentences (passages.py), and a
replica's catch-up counts every pulled text of more than one sentence: ~21 us of the
tokenizer's CPU a sentence, where it builds each token's string and offsets, for the
bench's memories about half the texts and none of them long enough to have passages
(issue 28). The model's tokenizer (BERT's: BertNormalizer, BertPreTokenizer, WordPiece)
reads a word alone: on a printable ASCII text its normalizer only lowercases (and makes
tab and line breaks spaces), its pre-tokenizer cuts at whitespace and makes each ASCII
punctuation character a word of its own, and WordPiece splits each word by itself. So
such a text's count is the sum of its words' counts, each word's asked of the tokenizer
once and kept (`TokenCounter`). Anything else (other characters, control characters, a
special token written out, which the tokenizer matches in the raw text before it
normalizes) is counted by the tokenizer itself. tests/test_token_count.py holds the two
counts equal on every text and sentence of the corpora and on edge texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tokenizers import Tokenizer
from tokenizers.normalizers import BertNormalizer
from tokenizers.pre_tokenizers import BertPreTokenizer

# Printable ASCII, tab and line breaks: what the normalizer leaves as it is but for case
_PLAIN = re.compile(r"[\x20-\x7e\t\n\r]*")
# BertPreTokenizer's words of a lowercased plain text: runs of letters and digits, and
# each other visible character alone (all of ASCII's are punctuation to it)
_WORD = re.compile(r"[a-z0-9]+|[^a-z0-9\s]")
# Words whose counts are kept, at most: a bound on the memory (~80 bytes a word with its
# slot, so ~1.6 MB; the bench's 2,000 texts hold 533 words), not a policy; past it the
# kept counts start again
KEPT = 20_000


class TokenCounter:
    """`count(texts)`: each text's tokens as the tokenizer counts them (no [CLS] and [SEP],
    not cut at the model's window), plain ASCII texts from their words' kept counts, the
    others by `tokenized` (the tokenizer's own count of a list of texts)."""

    def __init__(self, tokenizer: Tokenizer, tokenized: Callable[[list[str]], list[int]]) -> None:
        self._tokenizer = tokenizer
        self._tokenized = tokenized
        self._words: dict[str, int] = {}
        # The words alone add up to the text only for BERT's normalizer and pre-tokenizer
        # (another model's tokenizer is counted by itself, every text)
        self._bert = isinstance(tokenizer.normalizer, BertNormalizer) and isinstance(
            tokenizer.pre_tokenizer, BertPreTokenizer
        )
        # (matched in the raw text, or the lowercased one: looked for in the latter)
        self._special = [t.content.lower() for t in tokenizer.get_added_tokens_decoder().values()]

    def __call__(self, texts: list[str]) -> list[int]:
        out: list[int | None] = [self._plain(t) for t in texts]
        rest = [t for t, n in zip(texts, out, strict=True) if n is None]
        if rest:
            counted = iter(self._tokenized(rest))
            return [next(counted) if n is None else n for n in out]
        return [n for n in out if n is not None]

    def _plain(self, text: str) -> int | None:
        """The text's count from its words', or None when it is not a plain text."""
        if not self._bert or not text.isascii() or not _PLAIN.fullmatch(text):
            return None
        lowered = text.lower()
        if any(s in lowered for s in self._special):
            return None
        words = self._words
        if len(words) > KEPT:
            words.clear()
        total = 0
        for word in _WORD.findall(lowered):
            n = words.get(word)
            if n is None:
                n = words[word] = len(self._tokenizer.encode(word, add_special_tokens=False).ids)
            total += n
        return total

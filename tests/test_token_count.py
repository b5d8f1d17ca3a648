"""A plain ASCII text's token count from its words' kept counts (embedder/token_count.py)
is the tokenizer's own, on every text and sentence of the corpora and on edge texts; and
a text it cannot count so is counted by the tokenizer."""

from __future__ import annotations

from typing import Any

import pytest

import corpora
from enyal_daemon.embedder import passages, token_count

# The checks' corpora, and the questions agents ask
TEXTS = {**corpora.CORPORA, "scripts/data/agent_queries.jsonl": "query"}

EDGES = [
    "",
    " ",
    "a",
    "Hello, World!",
    "snake_case and kebab-case and dot.ted.words",
    "e.g. i.e. U.S.A. 3.14159 1,000,000 v2.0.1-rc1",
    "x" * 99,
    "x" * 100,
    "x" * 101 + " tail",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "https://example.com/a/b?c=d&e=f#frag user@example.com",
    "tabs\tand\nnew\r\nlines\n\n\nand   spaces  ",
    "[CLS] a special token [SEP] written [MASK] out [UNK] [PAD]",
    "[cls] lower [sep] case",
    "brackets [ and ] alone, [x], [CLSX]",
    "ctrl\x01char \x7f del \x0b vt \x0c ff",
    "naïve café 日本語 テキスト",
    "`code` ~tilde~ ^caret^ {brace} |pipe| \\back\\slash\\ 'quote' \"dq\"",
    "!!!???...;;;:::",
    "ALLCAPS MixedCase camelCaseWords HTTPServer XMLHttpRequest",
    "0x1F 0b1010 1e-9 -42 +7 100% $5 #hash @at",
]


def _tokenizer_counts(embedder: Any, texts: list[str]) -> list[int]:
    return [len(embedder._tokenizer.encode(t, add_special_tokens=False).ids) for t in texts]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    found = corpora.read(TEXTS)
    sentences = [s for t in found for s in passages._sentences(t)]
    return EDGES + found + sentences


def test_the_words_kept_count_as_the_tokenizer_does(embedder: Any, texts: list[str]) -> None:
    asked: list[str] = []

    def tokenized(batch: list[str]) -> list[int]:
        asked.extend(batch)
        return _tokenizer_counts(embedder, batch)

    count = token_count.TokenCounter(embedder._tokenizer, tokenized)
    assert len(texts) > 10_000
    got = count(texts)
    assert got == _tokenizer_counts(embedder, texts)
    # ... and most of them without the tokenizer counting the text (plain ASCII)
    assert len(asked) < len(texts) // 4
    # the texts that are not plain ASCII, or hold a special token, were the tokenizer's
    assert EDGES[12] in asked and EDGES[13] in asked  # [CLS] ... and [cls] ...
    assert "ctrl\x01char \x7f del \x0b vt \x0c ff" in asked
    assert "naïve café 日本語 テキスト" in asked
    assert "Hello, World!" not in asked


def test_the_embedder_counts_through_it(embedder: Any) -> None:
    sample = [*EDGES, *corpora.read(TEXTS)[:500]]
    assert embedder.count_tokens(sample) == _tokenizer_counts(embedder, sample)
    assert embedder.count_tokens([]) == []


def test_kept_words_are_bounded(embedder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(token_count, "KEPT", 10)
    count = token_count.TokenCounter(embedder._tokenizer, lambda b: _tokenizer_counts(embedder, b))
    words = [f"word{i}" for i in range(50)]
    assert count([" ".join(words)]) == _tokenizer_counts(embedder, [" ".join(words)])
    for w in words:
        count([w])
        assert len(count._words) <= 11

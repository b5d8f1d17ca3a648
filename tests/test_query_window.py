"""A query is read to the window the model was trained on (embedder/onnx.py QUERY_TOKENS):
a prompt pasted whole (a log, a traceback) is embedded from its first tokens, not at the
cost of attention over 256. Real model, real SQLite, in process."""

from __future__ import annotations

from typing import Any

import pytest

from enyal_daemon.embedder.onnx import MAX_TOKENS, QUERY_TOKENS
from enyal_daemon.service.memory import memories
from enyal_daemon.service.memory import recall as recall_verb
from enyal_protocol import wire as p

FACT = "Invoices are rounded half-even in the billing module, as the tax office requires."
HEAD = "How are invoices rounded in the billing module? Here is what I ran and what it said."
TAIL = "Traceback: File tests/test_tax.py, line 12, in test_total: AssertionError 3 != 4. "


def semantic(memory: Any, query: str) -> float:
    params = p.RecallParams(query=query, limit=5, min_relevance=0.0, min_relative=0.0)
    hits = recall_verb.recall(memory, params).results
    return next(h.semantic for h in hits if h.content == FACT)


def test_a_long_query_is_embedded_from_its_first_tokens(memory: Any) -> None:
    memories.remember(memory, p.RememberParams(content=FACT, scope="global"))
    long = HEAD + " " + TAIL * 40
    ends = memory.embedder.token_ends(long)
    assert len(ends) > MAX_TOKENS > QUERY_TOKENS, "longer than the model's whole window"
    window = long[: ends[QUERY_TOKENS - 3]]  # its first tokens, [CLS] and [SEP] beside
    whole = long[: ends[MAX_TOKENS - 3]]  # what the model would read without the cut

    def cosine(query: str) -> float:
        return float(memory.embed(query) @ memory.embed(FACT))

    assert abs(cosine(whole) - cosine(window)) > 0.01, "the two readings must differ"
    assert semantic(memory, long) == pytest.approx(cosine(window), abs=1e-3)
    short = "how are invoices rounded?"  # within the window: read whole, as before
    assert semantic(memory, short) == pytest.approx(cosine(short), abs=1e-3)

"""Keyword search over FTS5, with the user's text made literal.

FTS5 has its own query language (quotes, *, NEAR(), OR/AND/NOT, -, column:
filters). Memories are searched with plain words, so every word is quoted and
the words are OR-ed: an operator in the user's text is just a word, and a query
of many words still matches entries that hold only some of them (BM25 ranks).
"""

from __future__ import annotations

import re

import apsw

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32


def literal_query(text: str) -> str | None:
    """Plain text -> an FTS5 query that matches its words literally; None if it has none."""
    words = _WORD.findall(text)[:MAX_TERMS]
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(w.lower() for w in words))


def bm25_to_unit(score: float) -> float:
    """FTS5's bm25() is negative, more negative is better; map it to [0, 1)."""
    s = -score
    return s / (1.0 + s) if s > 0 else 0.0


def search(conn: apsw.Connection, text: str, k: int) -> list[tuple[int, float]]:
    """(rid, keyword score in [0,1)) for the k best BM25 matches."""
    query = literal_query(text)
    if query is None:
        return []
    cur = conn.execute(
        "SELECT rowid, bm25(context_fts) FROM context_fts WHERE context_fts MATCH ? "
        "ORDER BY rank LIMIT ?",
        (query, k),
    )
    return [(int(rid), bm25_to_unit(float(score))) for rid, score in cur]

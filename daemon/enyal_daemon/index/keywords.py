"""Keyword search over FTS5, with the user's text made literal and its score made comparable.

FTS5 has its own query language (quotes, *, NEAR(), OR/AND/NOT, -, column:
filters). Memories are searched with plain words, so every word is quoted and
the words are OR-ed: an operator in the user's text is just a word, and a query
of many words still matches entries that hold only some of them.

Raw BM25 grows with the corpus (rare words score higher in a big one), so it is
divided by the best score the query could get: the sum of its words' IDF. The
result is the share of the query's information an entry matches, in [0, 1],
whatever the corpus size. It is squared, so that matching half of a query is
worth a quarter: one shared word ("code" in "which linter should I run on the
code?") must not outweigh a clear match in meaning. Stopwords are dropped first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import apsw

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32

STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there
    these they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours""".split()
)


def terms(text: str) -> list[str]:
    """The words of a query worth matching: lower-cased, deduplicated, stopwords dropped
    (unless nothing else is left, so a query of only stopwords still finds something)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    content = [w for w in words if w not in STOPWORDS]
    return (content or words)[:MAX_TERMS]


def quoted(term: str) -> str:
    return f'"{term}"'


def search(
    conn: apsw.Connection, text: str, k: int, where: str = "1", args: Sequence[Any] = ()
) -> list[tuple[int, float]]:
    """(rid, keyword score in [0, 1]) for the k best BM25 matches among entries e WHERE `where`."""
    words = terms(text)
    if not words:
        return []
    ideal = _ideal_score(conn, words)
    cur = conn.execute(
        "SELECT f.rowid, bm25(context_fts) FROM context_fts f "
        f"JOIN context_entries e ON e.rid = f.rowid WHERE context_fts MATCH ? AND {where} "
        "ORDER BY rank LIMIT ?",
        (" OR ".join(quoted(w) for w in words), *args, k),
    )
    return [(int(rid), min(1.0, -float(score) / ideal) ** 2) for rid, score in cur]


def _ideal_score(conn: apsw.Connection, words: list[str]) -> float:
    """Sum of the words' IDF as FTS5's bm25() computes it: what a short entry holding every
    word once would score. A word no entry holds counts as the rarest possible."""
    row = conn.execute("SELECT count(*) FROM context_entries").fetchone()
    n = max(1, int(row[0]) if row else 1)
    total = 0.0
    for w in words:
        hit = conn.execute(
            "SELECT count(*) FROM context_fts WHERE context_fts MATCH ?", (quoted(w),)
        ).fetchone()
        df = int(hit[0]) if hit else 0
        total += max(1e-6, math.log((n - df + 0.5) / (df + 0.5)))
    return max(total, 1e-6)

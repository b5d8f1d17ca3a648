"""Contradiction and supersession hints for a memory being written (seed 000 §11).

Nothing here links or changes anything: the writer of the memory is told what
looks contradictory or replaceable, and decides (link conflicts_with, supersede).
Two cheap signals on top of similarity in meaning:
- negation: one statement says "not/never/don't/avoid…" and the other does not;
- a different choice for the same subject: the statements share most words and
  each has a few of its own ("Use Python 3.12" vs "Use Python 3.11").
"""

from __future__ import annotations

import re

from enyal_protocol import wire as p

from ..index.keywords import STOPWORDS
from ..store.rows import EntryRow

CONFLICT_SIMILARITY = 0.6
SUPERSEDE_SIMILARITY = 0.8
MAX_OWN_WORDS = 3
CANDIDATES = 10

NEGATIONS = frozenset(
    """not no never don't dont doesn't doesnt isn't isnt aren't arent shouldn't shouldnt
    mustn't mustnt can't cant cannot won't wont avoid stop stopped without disable
    disabled deprecated forbid forbidden instead""".split()
)
_TOKEN = re.compile(r"[\w.'+#-]+")


def _words(text: str) -> set[str]:
    return {w.strip(".'").lower() for w in _TOKEN.findall(text)} - {""}


def _negated(words: set[str]) -> bool:
    return bool(words & NEGATIONS)


def contradiction(new: str, old: str) -> str | None:
    """Why `new` seems to contradict `old`, or None."""
    a, b = _words(new), _words(old)
    if _negated(a) != _negated(b):
        return "negation: one says not/never, the other does not"
    own_a = (a - b) - STOPWORDS - NEGATIONS
    own_b = (b - a) - STOPWORDS - NEGATIONS
    shared = (a & b) - STOPWORDS
    if shared and 0 < len(own_a) <= MAX_OWN_WORDS and 0 < len(own_b) <= MAX_OWN_WORDS:
        return f"different choice: {', '.join(sorted(own_a))} vs {', '.join(sorted(own_b))}"
    return None


def review(
    content: str,
    content_type: str,
    scope: tuple[str, str | None],
    similar: list[tuple[EntryRow, float]],
    detect: bool,
    suggest: bool,
) -> tuple[list[p.Related], list[p.Related]]:
    """(conflicts, supersedes candidates) among `similar` (entry rows with similarity)."""
    conflicts: list[p.Related] = []
    candidates: list[p.Related] = []
    for row, sim in similar:
        if row.content == content:
            continue
        why = contradiction(content, row.content) if sim >= CONFLICT_SIMILARITY else None
        if detect and why:
            conflicts.append(p.Related(id=row.id, content=row.content, similarity=sim, reason=why))
        same_kind = row.content_type == content_type and row.scope == scope
        if suggest and same_kind and (sim >= SUPERSEDE_SIMILARITY or why):
            reason = why or "same subject, same scope: the new statement may replace it"
            candidates.append(
                p.Related(id=row.id, content=row.content, similarity=sim, reason=reason)
            )
    return conflicts, candidates

"""Token budgets: the best results packed into what an agent can afford to read.

Tokens are counted with the model's own tokenizer (the embedder's, untruncated),
over what the agent is shown of a result: its content, plus RESULT_OVERHEAD tokens
for the id, type, scope and score that come with it. Results are taken best first
while they fit; the first that does not is cut to the room left, ending in a marker
naming the id to fetch it whole (if at least MIN_CUT_TOKENS of its text fit), and
everything after it is left out and listed, so an agent knows what to ask for next.
A result is never cut anywhere else, and nothing overflows the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import msgspec

from enyal_protocol import wire as p

from ..core.engine import Engine

# The id (36), type, scope path and score of a result, as an agent sees them beside its
# content, come to 10-20 tokens; a fixed 12 keeps the count simple and close.
RESULT_OVERHEAD = 12
# Cutting a result to fewer tokens than this shows too little of it to be worth its
# overhead: it is left out instead.
MIN_CUT_TOKENS = 8
MARKER = " … [truncated, enyal get {id}]"

H = TypeVar("H", bound=p.Hit)


def count(engine: Engine, texts: Sequence[str]) -> list[int]:
    return engine.token_counts.count(texts)  # each text's count remembered (embedder/memo.py)


def cut(engine: Engine, text: str, room: int, marker: str) -> str | None:
    """`text`'s longest prefix (at token boundaries) that fits `room` tokens together with
    `marker`, or None when fewer than MIN_CUT_TOKENS of it would."""
    ends = engine.embedder.token_ends(text)
    keep = min(len(ends), room - count(engine, [marker])[0])
    while keep >= MIN_CUT_TOKENS:
        shown = text[: ends[keep - 1]].rstrip() + marker
        # Tokens at the seam may merge or split: check the result, not the arithmetic.
        if count(engine, [shown])[0] <= room:
            return shown
        keep -= 1
    return None


def pack(engine: Engine, hits: list[H], budget: int) -> tuple[list[H], p.Budget]:
    sizes = count(engine, [h.content for h in hits])
    used = 0
    shown: list[H] = []
    truncated: str | None = None
    for hit, size in zip(hits, sizes, strict=True):
        if used + RESULT_OVERHEAD + size <= budget:
            shown.append(hit)
            used += RESULT_OVERHEAD + size
            continue
        room = budget - used - RESULT_OVERHEAD
        text = cut(engine, hit.content, room, MARKER.format(id=hit.id)) if room > 0 else None
        if text is not None:
            shown.append(msgspec.structs.replace(hit, content=text))
            used += RESULT_OVERHEAD + count(engine, [text])[0]
            truncated = hit.id
        break
    omitted = [h.id for h in hits[len(shown) :]]
    return shown, p.Budget(
        budget_tokens=budget,
        used_tokens=used,
        overhead_tokens=RESULT_OVERHEAD,
        truncated=truncated,
        omitted=len(omitted),
        omitted_ids=omitted,
    )

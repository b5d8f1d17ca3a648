"""Passages for memories stored before passages existed, filled in by the daemon itself.

Migration m011 records the highest rid then stored (enyal_meta: passages_backfill_rid);
every later write computes its own passages. The daemon then walks the older entries
in rid order, a step at a time, and gives each long one its passages; the rid reached
is recorded with each step's writes (passages_backfill_done), so a daemon stopped
half way resumes where it was. When the walk is done both keys go.

A step embeds at most STEP_PASSAGES passages (about a second of one core), so requests
keep their share of the two inference slots meanwhile. A text of at most
PASSAGE_TOKENS characters cannot be more than one passage (a token covers one
character at least), so SQL skips those without reading them.
"""

from __future__ import annotations

import functools
import logging

from ...embedder import passages
from ...embedder.passages import PASSAGE_TOKENS
from ...index.groups import kind_code
from ...store import entries, meta
from ...store.writer import Tx
from ..core.engine import Engine

log = logging.getLogger(__name__)

UPTO_KEY = "passages_backfill_rid"
DONE_KEY = "passages_backfill_done"
STEP_PASSAGES = 64
SCAN = 256  # entries read a step, at most


def pending(engine: Engine) -> bool:
    return meta.get(engine.reader(), UPTO_KEY) is not None


def step(engine: Engine) -> bool:
    """Give the next few old entries their passages; False when none are left to see."""
    conn = engine.reader()
    upto = meta.get(conn, UPTO_KEY)
    if upto is None:
        return False
    after = int(meta.get(conn, DONE_KEY) or 0)
    rows = entries.contents_after(conn, after, SCAN, upto_rid=int(upto), longer_than=PASSAGE_TOKENS)
    if not rows:
        engine.write(lambda tx: meta.delete(tx.conn, UPTO_KEY, DONE_KEY))
        log.info("passages: every older memory has been seen")
        return False
    todo: list[tuple[int, str, list[str]]] = []
    reached = after
    budget = STEP_PASSAGES
    for rid, content in rows:
        parts = passages.split(content, engine.embedder.count_tokens)
        if parts and todo and len(parts) > budget:
            break  # the next step's
        reached = rid
        if parts:
            todo.append((rid, content, parts))
            budget -= len(parts)
            if budget <= 0:
                break
    vecs = engine.embed_many([p for _, _, parts in todo for p in parts]) if todo else None

    def job(tx: Tx) -> None:
        at = 0
        for rid, content, parts in todo:
            mine = vecs[at : at + len(parts)] if vecs is not None else None
            at += len(parts)
            row = entries.by_rids(tx.conn, [rid]).get(rid)
            # Rewritten since it was read (with passages of its own), or deleted: skip.
            if mine is None or row is None or row.content != content:
                continue
            if entries.has_passages(tx.conn, rid):
                continue
            entries.replace_passages(tx.conn, rid, [v.tobytes() for v in mine])
            show = functools.partial(
                engine.index.passages.replace,
                rid,
                mine,
                active=not row.is_deprecated,
                group=engine.groups.key(*row.scope),
                kind=kind_code(row.content_type),
            )
            tx.after_commit.append(show)
        meta.put(tx.conn, DONE_KEY, str(reached))

    engine.write(job)
    return True

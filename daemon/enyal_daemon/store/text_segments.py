"""How the keyword indexes' segments lie, and merging them into one a step at a time.

FTS5 writes each transaction's new terms as a segment of its own and merges segments
only once four of a size gather (its `automerge`), so a store written a memory at a
time, or bulk-loaded in batches, holds its index in several segments, and a search
reads each word's list of entries from every one of them and merges them as it ranks:
the bench's 10k store (8 segments, three of about a third each) searched in 0.76 ms a
question, and merged into one in 0.58, with the same scores (docs/ARCHITECTURE.md,
"Where a recall's CPU goes", round seventeen). Merging rewrites the whole index, so it
is worth it only once the index is split: SPLIT_SHARE of its pages outside its largest
segment. A few small segments beside one large one (a merged index, then some writes)
cost a search a seek each; a split one costs it a third or more of its work.
"""

from __future__ import annotations

import apsw

# The keyword indexes (index/keywords.py searches both): FTS5 tables over the entries.
TEXT_INDEXES = ("context_fts", "context_cjk")
# Merged once at least this share of an index's leaf pages is outside its largest
# segment. A merge rewrites the index, so between two merges the writes have added at
# least this share of it again: the merges write at most 1 / SPLIT_SHARE times what
# the writes themselves wrote to it.
SPLIT_SHARE = 0.1
# Leaf pages one merge step writes, about (FTS5 writes about twice the number given):
# a step holds the writer's turn while it runs, ~3 ms at the median at 10k and 100k; the
# longest, 17-19 ms at 100k and 46 at 1M, is one in the middle of a merge (presumably a
# common word's long list of entries, which FTS5 merges whole), and 32 pages a step left
# it as long (docs/ARCHITECTURE.md, "Where a recall's CPU goes", round seventeen).
STEP_PAGES = 64


def segments(conn: apsw.Connection, table: str) -> list[int]:
    """Each segment's leaf pages, largest first, as the index's own b-tree of first
    terms counts them (the last leaf page on which a term starts: a doclist running on
    past it is not counted, which only makes a segment look a little smaller)."""
    rows = conn.execute(f"SELECT max(pgno) FROM {table}_idx GROUP BY segid")
    return sorted((pages for (pages,) in rows if isinstance(pages, int)), reverse=True)


def split(conn: apsw.Connection, table: str) -> bool:
    """Whether the index is split enough to merge (SPLIT_SHARE)."""
    pages = segments(conn, table)
    return len(pages) > 1 and sum(pages[1:]) >= SPLIT_SHARE * sum(pages)


def merge_step(conn: apsw.Connection, table: str) -> bool:
    """One step of merging every segment of the index into one (FTS5's 'merge' with a
    negative count: segments of every level taken together, as 'optimize' does, but
    STEP_PAGES at a time); whether one segment is left."""
    conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)", (-STEP_PAGES,))
    return len(segments(conn, table)) <= 1


def merge_whole(conn: apsw.Connection) -> None:
    """Every keyword index merged into one segment at once (FTS5's 'optimize'): for an
    offline writer with the store to itself (tools/bulk.py, the bench's cached imports),
    where no request waits on a step."""
    for table in TEXT_INDEXES:
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")

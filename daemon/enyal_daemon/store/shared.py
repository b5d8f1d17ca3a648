"""SQL over context_shared (which entries are shared, and into which repository),
context_shared_roots (the repositories whose `.enyal/` is read, with each one's rule)
and context_shared_problems (files there that could not be read). No policy here:
service/files/sharing.py decides what is written and what a changed file means."""

from __future__ import annotations

from collections.abc import Sequence

import apsw
import msgspec

from .db import in_lists


class SharedRow(msgspec.Struct, frozen=True):
    rid: int
    id: str  # the entry's
    root: str
    file_hash: str | None  # the file as last written or read; None: not written yet
    version: int | None  # the entry's version then
    review: str | None


_COLUMNS = "s.rid, e.id, s.root, s.file_hash, s.version, s.review"
_FROM = "context_shared s JOIN context_entries e ON e.rid = s.rid"


def mark(conn: apsw.Connection, rid: int, root: str, file_hash: str | None = None) -> None:
    conn.execute(
        "INSERT INTO context_shared (rid, root, file_hash) VALUES (?, ?, ?) "
        "ON CONFLICT (rid) DO UPDATE SET root = excluded.root",
        (rid, root, file_hash),
    )


def unmark(conn: apsw.Connection, rid: int) -> None:
    conn.execute("DELETE FROM context_shared WHERE rid = ?", (rid,))


def set_synced(conn: apsw.Connection, rid: int, file_hash: str | None) -> None:
    """The file is `file_hash` and says the entry as it is now (its latest version)."""
    conn.execute(
        "UPDATE context_shared SET file_hash = ?, version = (SELECT max(v.version) FROM "
        "context_versions v JOIN context_entries e ON e.id = v.entry_id WHERE e.rid = ?) "
        "WHERE rid = ?",
        (file_hash, rid, rid),
    )


def set_review(conn: apsw.Connection, rid: int, reason: str | None) -> None:
    conn.execute("UPDATE context_shared SET review = ? WHERE rid = ?", (reason, rid))


def get(conn: apsw.Connection, entry_id: str) -> SharedRow | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM {_FROM} WHERE e.id = ?", (entry_id,)).fetchone()
    return SharedRow(*row) if row else None


def in_root(conn: apsw.Connection, root: str) -> dict[str, SharedRow]:
    """entry id -> its row, for every entry shared into `root`."""
    cur = conn.execute(f"SELECT {_COLUMNS} FROM {_FROM} WHERE s.root = ?", (root,))
    return {r.id: r for r in (SharedRow(*x) for x in cur)}


def behind(conn: apsw.Connection, root: str) -> list[str]:
    """Ids of the entries shared into `root` whose file is not known to say them as they
    are now: never written, or written from an older version."""
    cur = conn.execute(
        "SELECT e.id FROM context_shared s JOIN context_entries e ON e.rid = s.rid "
        "WHERE s.root = ? AND (s.file_hash IS NULL OR s.version IS NULL OR s.version < "
        "(SELECT max(v.version) FROM context_versions v WHERE v.entry_id = e.id))",
        (root,),
    )
    return [r[0] for r in cur]


def shared_ids(conn: apsw.Connection, ids: Sequence[str]) -> set[str]:
    out: set[str] = set()
    for chunk, marks in in_lists(ids):
        cur = conn.execute(f"SELECT e.id FROM {_FROM} WHERE e.id IN ({marks})", chunk)
        out.update(r[0] for r in cur)
    return out


def to_review(conn: apsw.Connection, limit: int) -> list[SharedRow]:
    cur = conn.execute(
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE s.review IS NOT NULL ORDER BY s.rid LIMIT ?",
        (limit,),
    )
    return [SharedRow(*r) for r in cur]


def review_counts(conn: apsw.Connection) -> dict[str, int]:
    """root -> how many of its shared entries are flagged for review."""
    cur = conn.execute(
        "SELECT root, count(*) FROM context_shared WHERE review IS NOT NULL GROUP BY root"
    )
    return {root: n for root, n in cur}


def counts(conn: apsw.Connection) -> dict[str, int]:
    """root -> how many entries are shared into it."""
    cur = conn.execute("SELECT root, count(*) FROM context_shared GROUP BY root")
    return {root: n for root, n in cur}


# --- the repositories read -------------------------------------------------------------


# The other checkouts of the project `?` is a root of (context_project_roots keeps each
# root seen with its project's key): a rule is the project's, as its memories are, so a
# moved checkout or a second clone shares by the rule set in another (issue 27).
_SIBLINGS = (
    "SELECT s.root FROM context_shared_roots s "
    "JOIN context_project_roots r ON r.root = s.root "
    "WHERE r.key = (SELECT key FROM context_project_roots WHERE root = ?)"
)
_INHERITED = (
    f"SELECT types FROM context_shared_roots WHERE root IN ({_SIBLINGS}) "
    "ORDER BY added_at DESC LIMIT 1"
)


def add_root(conn: apsw.Connection, root: str, when: str) -> None:
    """Read `root`'s `.enyal/` from now on, under its project's rule if another checkout
    of the project has one."""
    conn.execute(
        "INSERT INTO context_shared_roots (root, types, added_at) "
        f"VALUES (?, coalesce(({_INHERITED}), '[]'), ?) "
        "ON CONFLICT (root) DO NOTHING",
        (root, root, when),
    )


def roots(conn: apsw.Connection) -> dict[str, list[str]]:
    """root -> its rule (the types shared as they are remembered)."""
    cur = conn.execute("SELECT root, types FROM context_shared_roots ORDER BY root")
    return {root: msgspec.json.decode(types) for root, types in cur}


def rule_of(conn: apsw.Connection, root: str) -> list[str]:
    """The types shared as they are remembered in `root`: its own rule, else the one of
    another checkout of its project (one not read yet: moved, or a second clone)."""
    for sql in ("SELECT types FROM context_shared_roots WHERE root = ?", _INHERITED):
        for (types,) in conn.execute(sql, (root,)):
            decoded: list[str] = msgspec.json.decode(types)
            return decoded
    return []


def set_rule(conn: apsw.Connection, root: str, types: Sequence[str]) -> None:
    """The rule of `root`'s project: in every checkout of it this home reads."""
    conn.execute(
        f"UPDATE context_shared_roots SET types = ? WHERE root = ? OR root IN ({_SIBLINGS})",
        (msgspec.json.encode(list(types)).decode(), root, root),
    )


# --- files that could not be read ------------------------------------------------------


def record_problem(
    conn: apsw.Connection, root: str, name: str, reason: str, file_hash: str, when: str
) -> None:
    conn.execute(
        "INSERT INTO context_shared_problems (root, name, reason, file_hash, seen_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (root, name) DO UPDATE SET reason = excluded.reason,"
        " file_hash = excluded.file_hash, seen_at = excluded.seen_at",
        (root, name, reason, file_hash, when),
    )


def clear_problem(conn: apsw.Connection, root: str, name: str) -> None:
    conn.execute("DELETE FROM context_shared_problems WHERE root = ? AND name = ?", (root, name))


def problems(conn: apsw.Connection, root: str | None = None) -> list[tuple[str, str, str, str]]:
    """(root, name, reason, file_hash) of each file that could not be read."""
    sql = "SELECT root, name, reason, file_hash FROM context_shared_problems"
    cur = (
        conn.execute(sql + " WHERE root = ? ORDER BY name", (root,))
        if root is not None
        else conn.execute(sql + " ORDER BY root, name")
    )
    return [(a, b, c, d) for a, b, c, d in cur]

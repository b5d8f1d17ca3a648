"""SQL over context_sources (the file an entry cites, as it was) and context_index_roots
(what `index` was given). No policy here: service/files/sources.py and service/files/indexing.py
decide what is stale and what a file's chunks are."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import apsw
import msgspec

from enyal_protocol.wire import ContentType

from .db import in_lists


class Fingerprint(msgspec.Struct, frozen=True):
    """A file as it was: None everywhere when it did not exist."""

    hash: str | None
    mtime_ns: int | None
    size: int | None


class SourceRow(msgspec.Struct, frozen=True):
    rid: int
    id: str  # the entry's
    path: str
    hash: str | None
    mtime_ns: int | None
    size: int | None
    anchor: str | None  # not None: the entry mirrors a chunk of an indexed file
    deprecated: int  # the entry's is_deprecated

    @property
    def fingerprint(self) -> Fingerprint:
        return Fingerprint(self.hash, self.mtime_ns, self.size)

    @property
    def mirror(self) -> bool:
        return self.anchor is not None


_COLUMNS = "s.rid, e.id, s.path, s.hash, s.mtime_ns, s.size, s.anchor, e.is_deprecated"


def record(
    conn: apsw.Connection, rid: int, path: str, fp: Fingerprint, anchor: str | None = None
) -> None:
    conn.execute(
        "INSERT INTO context_sources (rid, path, hash, mtime_ns, size, anchor) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rid) DO UPDATE SET path = excluded.path, "
        "hash = excluded.hash, mtime_ns = excluded.mtime_ns, size = excluded.size, "
        "anchor = excluded.anchor",
        (rid, path, fp.hash, fp.mtime_ns, fp.size, anchor),
    )


def refresh(conn: apsw.Connection, rids: Iterable[int], fp: Fingerprint) -> None:
    """The file as it is now, for these entries (their path and anchor stay)."""
    conn.executemany(
        "UPDATE context_sources SET hash = ?, mtime_ns = ?, size = ? WHERE rid = ?",
        [(fp.hash, fp.mtime_ns, fp.size, rid) for rid in rids],
    )


def any_held(conn: apsw.Connection) -> bool:
    """Whether any entry cites a file (or mirrors an indexed one)."""
    row = conn.execute("SELECT EXISTS (SELECT 1 FROM context_sources)").fetchone()
    return bool(row and row[0])


def for_ids(conn: apsw.Connection, ids: Sequence[str]) -> dict[str, SourceRow]:
    """entry id -> its source, for those of `ids` that cite a file."""
    out: dict[str, SourceRow] = {}
    for chunk, marks in in_lists(ids):
        cur = conn.execute(
            f"SELECT {_COLUMNS} FROM context_sources s JOIN context_entries e ON e.rid = s.rid "
            f"WHERE e.id IN ({marks})",
            chunk,
        )
        for r in cur:
            row = SourceRow(*r)
            out[row.id] = row
    return out


def active(conn: apsw.Connection) -> list[SourceRow]:
    """The source of every active entry that cites a file, oldest update first."""
    cur = conn.execute(
        f"SELECT {_COLUMNS} FROM context_sources s JOIN context_entries e ON e.rid = s.rid "
        "WHERE e.is_deprecated = 0 ORDER BY e.updated_at"
    )
    return [SourceRow(*r) for r in cur]


def mirrors_of(conn: apsw.Connection, path: str) -> list[SourceRow]:
    """The chunks of one indexed file, forgotten ones included."""
    cur = conn.execute(
        f"SELECT {_COLUMNS} FROM context_sources s JOIN context_entries e ON e.rid = s.rid "
        "WHERE s.path = ? AND s.anchor IS NOT NULL",
        (path,),
    )
    return [SourceRow(*r) for r in cur]


def mirror_rids(conn: apsw.Connection) -> set[int]:
    """The entries that mirror a chunk of an indexed file."""
    return {
        int(r[0]) for r in conn.execute("SELECT rid FROM context_sources WHERE anchor IS NOT NULL")
    }


def mirrored_files_under(conn: apsw.Connection, folder: str) -> list[str]:
    """Indexed files at or below `folder` that still have an active chunk."""
    prefix = folder.rstrip("/") + "/"
    cur = conn.execute(
        "SELECT DISTINCT s.path FROM context_sources s JOIN context_entries e ON e.rid = s.rid "
        "WHERE s.anchor IS NOT NULL AND e.is_deprecated = 0 "
        "AND (s.path = ? OR substr(s.path, 1, ?) = ?)",
        (folder, len(prefix), prefix),
    )
    return [str(r[0]) for r in cur]


def ever_mirrored_under(conn: apsw.Connection, folder: str) -> bool:
    """Whether a file at or below `folder` was ever indexed (its chunks active or not)."""
    prefix = folder.rstrip("/") + "/"
    row = conn.execute(
        "SELECT 1 FROM context_sources WHERE anchor IS NOT NULL "
        "AND (path = ? OR substr(path, 1, ?) = ?) LIMIT 1",
        (folder, len(prefix), prefix),
    ).fetchone()
    return row is not None


# --- what index was given ----------------------------------------------------------------


def add_root(
    conn: apsw.Connection,
    path: str,
    globs: Sequence[str],
    content_type: str,
    now: str,
    auto_memory_of: str | None = None,
) -> None:
    conn.execute(
        "INSERT INTO context_index_roots (path, globs, content_type, added_at, auto_memory_of) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET globs = excluded.globs, "
        "content_type = excluded.content_type, auto_memory_of = excluded.auto_memory_of",
        (path, msgspec.json.encode(list(globs)).decode(), content_type, now, auto_memory_of),
    )


class Root(msgspec.Struct, frozen=True):
    path: str
    globs: tuple[str, ...]
    content_type: ContentType
    auto_memory_of: str | None = None  # Claude Code's auto memory of this project


def roots(conn: apsw.Connection) -> list[Root]:
    """Everything `index` was given, oldest first."""
    return [
        Root(str(path), tuple(msgspec.json.decode(globs, type=list[str])), content_type, project)
        for path, globs, content_type, project in conn.execute(
            "SELECT path, globs, content_type, auto_memory_of FROM context_index_roots "
            "ORDER BY added_at, path"
        )
    ]


def remove_roots(conn: apsw.Connection, path: str) -> None:
    """`index` forgets it was given `path`, or anything below it."""
    prefix = path.rstrip("/") + "/"
    conn.execute(
        "DELETE FROM context_index_roots WHERE path = ? OR substr(path, 1, ?) = ?",
        (path, len(prefix), prefix),
    )

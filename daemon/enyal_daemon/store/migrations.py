"""Schema migrations: small named functions, applied in order when the writer opens.

Each runs in its own transaction together with the bump of `schema_version`, so
a crash leaves the database at one version or the next, never between. Later
features append a function to MIGRATIONS; existing ones never change.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import apsw
import msgspec

from enyal_protocol import projects

from . import cjk, meta

EMBED_DIM = 384


def m001_entries(conn: apsw.Connection) -> None:
    conn.execute(
        f"""
        CREATE TABLE context_entries (
            rid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            content_type TEXT NOT NULL CHECK (content_type IN
                ('fact', 'preference', 'decision', 'convention', 'pattern')),
            scope_level TEXT NOT NULL CHECK (scope_level IN
                ('global', 'workspace', 'project', 'file')),
            scope_path TEXT,
            confidence REAL NOT NULL DEFAULT 1.0 CHECK (confidence >= 0 AND confidence <= 1),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            accessed_at TEXT,
            access_count INTEGER NOT NULL DEFAULT 0,
            source_type TEXT CHECK (source_type IN
                ('conversation', 'file', 'commit', 'manual')),
            source_ref TEXT,
            tags TEXT NOT NULL DEFAULT '[]',
            metadata TEXT NOT NULL DEFAULT '{{}}',
            is_deprecated INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX idx_entries_hash ON context_entries(content_hash, scope_level, scope_path);
        CREATE INDEX idx_entries_scope ON context_entries(scope_level, scope_path);
        CREATE INDEX idx_entries_type ON context_entries(content_type);
        CREATE INDEX idx_entries_updated ON context_entries(updated_at);

        -- rowid = context_entries.rid: the vector of an entry is found without a join key.
        CREATE VIRTUAL TABLE context_vectors USING vec0(embedding float[{EMBED_DIM}]);

        CREATE VIRTUAL TABLE context_fts USING fts5(
            content, content='context_entries', content_rowid='rid',
            tokenize='porter unicode61'
        );
        CREATE TRIGGER context_fts_insert AFTER INSERT ON context_entries BEGIN
            INSERT INTO context_fts(rowid, content) VALUES (new.rid, new.content);
        END;
        CREATE TRIGGER context_fts_delete AFTER DELETE ON context_entries BEGIN
            INSERT INTO context_fts(context_fts, rowid, content)
                VALUES ('delete', old.rid, old.content);
        END;
        CREATE TRIGGER context_fts_update AFTER UPDATE OF content ON context_entries BEGIN
            INSERT INTO context_fts(context_fts, rowid, content)
                VALUES ('delete', old.rid, old.content);
            INSERT INTO context_fts(rowid, content) VALUES (new.rid, new.content);
        END;
        CREATE TRIGGER context_vectors_delete AFTER DELETE ON context_entries BEGIN
            DELETE FROM context_vectors WHERE rowid = old.rid;
        END;
        """
    )


def m002_meta(conn: apsw.Connection) -> None:
    # Facts about the database itself: the model its vectors came from, first of all.
    conn.execute("CREATE TABLE enyal_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def m003_graph_versions_analytics(conn: apsw.Connection) -> None:
    """The knowledge graph (seed 004), entry versions and usage analytics (seed 000 §10-11).

    Entries that predate this migration get a version 1 ('created') holding their
    current state: their earlier contents, if any, were never recorded."""
    conn.execute(
        """
        CREATE TABLE context_edges (
            id TEXT PRIMARY KEY,
            source_id TEXT NOT NULL REFERENCES context_entries(id) ON DELETE CASCADE,
            target_id TEXT NOT NULL REFERENCES context_entries(id) ON DELETE CASCADE,
            edge_type TEXT NOT NULL CHECK (edge_type IN
                ('relates_to', 'supersedes', 'depends_on', 'conflicts_with')),
            confidence REAL NOT NULL DEFAULT 1.0 CHECK (confidence >= 0 AND confidence <= 1),
            created_at TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            UNIQUE (source_id, target_id, edge_type),
            CHECK (source_id <> target_id)
        );
        CREATE INDEX idx_edges_target ON context_edges(target_id, edge_type);

        CREATE TABLE context_versions (
            id INTEGER PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES context_entries(id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            change_type TEXT NOT NULL CHECK (change_type IN
                ('created', 'updated', 'forgotten', 'restored', 'reverted')),
            changed_at TEXT NOT NULL,
            content TEXT NOT NULL,
            content_type TEXT NOT NULL,
            confidence REAL NOT NULL,
            tags TEXT NOT NULL,
            metadata TEXT NOT NULL,
            is_deprecated INTEGER NOT NULL,
            UNIQUE (entry_id, version)
        );
        CREATE INDEX idx_versions_time ON context_versions(changed_at);

        CREATE TABLE context_analytics (
            id INTEGER PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES context_entries(id) ON DELETE CASCADE,
            event_type TEXT NOT NULL CHECK (event_type IN ('recall', 'update', 'link', 'impact')),
            event_at TEXT NOT NULL,
            query TEXT,
            result_rank INTEGER,
            metadata TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX idx_analytics_time ON context_analytics(event_at);
        CREATE INDEX idx_analytics_entry ON context_analytics(entry_id, event_at);

        INSERT INTO context_versions (entry_id, version, change_type, changed_at, content,
            content_type, confidence, tags, metadata, is_deprecated)
        SELECT id, 1, 'created', created_at, content, content_type, confidence, tags, metadata,
            is_deprecated
        FROM context_entries;
        """
    )


def m004_tags(conn: apsw.Connection) -> None:
    """Tags as rows, kept by triggers: a tag filter becomes an index lookup instead of
    parsing every entry's JSON (49 ms at 100k, scripts/bench)."""
    conn.execute(
        """
        CREATE TABLE context_tags (
            rid INTEGER NOT NULL REFERENCES context_entries(rid) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (tag, rid)
        ) WITHOUT ROWID;
        CREATE INDEX idx_tags_rid ON context_tags(rid);
        INSERT OR IGNORE INTO context_tags(rid, tag)
            SELECT e.rid, j.value FROM context_entries e, json_each(e.tags) j;
        CREATE TRIGGER context_tags_insert AFTER INSERT ON context_entries BEGIN
            INSERT OR IGNORE INTO context_tags(rid, tag)
                SELECT new.rid, value FROM json_each(new.tags);
        END;
        CREATE TRIGGER context_tags_update AFTER UPDATE OF tags ON context_entries BEGIN
            DELETE FROM context_tags WHERE rid = new.rid;
            INSERT OR IGNORE INTO context_tags(rid, tag)
                SELECT new.rid, value FROM json_each(new.tags);
        END;
        """
    )


def m005_importance_expiry(conn: apsw.Connection) -> None:
    """Importance (1-5), expiry, and confirmations (issue 10; seeds 001, 002). Adding
    columns with defaults rewrites nothing: existing entries read as importance 3,
    never expiring, never confirmed."""
    conn.execute(
        """
        ALTER TABLE context_entries ADD COLUMN importance INTEGER NOT NULL DEFAULT 3
            CHECK (importance BETWEEN 1 AND 5);
        ALTER TABLE context_entries ADD COLUMN expires_at TEXT;
        ALTER TABLE context_entries ADD COLUMN confirmed_at TEXT;
        ALTER TABLE context_entries ADD COLUMN confirm_count INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX idx_entries_expiry ON context_entries(expires_at)
            WHERE expires_at IS NOT NULL;
        """
    )


def m006_provenance_quarantine(conn: apsw.Connection) -> None:
    """Who wrote an entry, and whether it reads as an instruction to the agent (issue
    10): existing entries have no known writer and are not quarantined."""
    conn.execute(
        """
        ALTER TABLE context_entries ADD COLUMN written_by TEXT
            CHECK (written_by IN ('user', 'agent', 'import', 'file'));
        ALTER TABLE context_entries ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE context_entries ADD COLUMN quarantine_reason TEXT;
        CREATE INDEX idx_entries_quarantined ON context_entries(rid) WHERE quarantined = 1;
        """
    )


def m007_access_confirm_merge(conn: apsw.Connection) -> None:
    """Issue 10's hygiene: a `get` is logged as an 'access' event, `confirm` and
    `consolidate` write versions ('confirmed', 'merged'), and a merge version names the
    entries it joined (merged_from on the survivor, merged_into on each merged one).

    SQLite cannot alter a CHECK, so both tables are rebuilt: a new table, the rows
    copied with their ids, the old one dropped, the new one renamed, its indexes made
    again. Neither table is a foreign-key parent, so dropping the old one cascades
    nothing."""
    conn.execute(
        """
        CREATE TABLE context_versions_new (
            id INTEGER PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES context_entries(id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            change_type TEXT NOT NULL CHECK (change_type IN
                ('created', 'updated', 'forgotten', 'restored', 'reverted', 'confirmed',
                 'merged')),
            changed_at TEXT NOT NULL,
            content TEXT NOT NULL,
            content_type TEXT NOT NULL,
            confidence REAL NOT NULL,
            tags TEXT NOT NULL,
            metadata TEXT NOT NULL,
            is_deprecated INTEGER NOT NULL,
            merged_from TEXT,
            merged_into TEXT,
            UNIQUE (entry_id, version)
        );
        INSERT INTO context_versions_new (id, entry_id, version, change_type, changed_at,
            content, content_type, confidence, tags, metadata, is_deprecated)
        SELECT id, entry_id, version, change_type, changed_at, content, content_type,
            confidence, tags, metadata, is_deprecated
        FROM context_versions;
        DROP TABLE context_versions;
        ALTER TABLE context_versions_new RENAME TO context_versions;
        CREATE INDEX idx_versions_time ON context_versions(changed_at);

        CREATE TABLE context_analytics_new (
            id INTEGER PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES context_entries(id) ON DELETE CASCADE,
            event_type TEXT NOT NULL CHECK (event_type IN
                ('recall', 'update', 'link', 'impact', 'access')),
            event_at TEXT NOT NULL,
            query TEXT,
            result_rank INTEGER,
            metadata TEXT NOT NULL DEFAULT '{}'
        );
        INSERT INTO context_analytics_new (id, entry_id, event_type, event_at, query,
            result_rank, metadata)
        SELECT id, entry_id, event_type, event_at, query, result_rank, metadata
        FROM context_analytics;
        DROP TABLE context_analytics;
        ALTER TABLE context_analytics_new RENAME TO context_analytics;
        CREATE INDEX idx_analytics_time ON context_analytics(event_at);
        CREATE INDEX idx_analytics_entry ON context_analytics(entry_id, event_at);
        """
    )


def m008_metadata_index(conn: apsw.Connection) -> None:
    """Metadata pairs as rows, kept by triggers, as m004 did for tags: a `where` filter
    becomes an index lookup instead of json_extract on every entry (60 ms at 100k,
    scripts/bench). `value` has no type, so it holds what json_extract gives (text,
    integer, real; true/false as 1/0; an object or array as its JSON text) and compares
    as it did; a null never equals anything, so it is left out."""
    conn.execute(
        """
        CREATE TABLE context_metadata (
            key TEXT NOT NULL,
            value NOT NULL,
            rid INTEGER NOT NULL REFERENCES context_entries(rid) ON DELETE CASCADE,
            PRIMARY KEY (key, value, rid)
        ) WITHOUT ROWID;
        CREATE INDEX idx_metadata_rid ON context_metadata(rid);
        INSERT OR IGNORE INTO context_metadata(key, value, rid)
            SELECT j.key, j.value, e.rid FROM context_entries e, json_each(e.metadata) j
            WHERE json_type(e.metadata) = 'object' AND j.type != 'null';
        CREATE TRIGGER context_metadata_insert AFTER INSERT ON context_entries
        WHEN json_type(new.metadata) = 'object' BEGIN
            INSERT OR IGNORE INTO context_metadata(key, value, rid)
                SELECT key, value, new.rid FROM json_each(new.metadata) WHERE type != 'null';
        END;
        CREATE TRIGGER context_metadata_update AFTER UPDATE OF metadata ON context_entries BEGIN
            DELETE FROM context_metadata WHERE rid = new.rid;
            INSERT OR IGNORE INTO context_metadata(key, value, rid)
                SELECT key, value, new.rid FROM json_each(new.metadata)
                WHERE type != 'null' AND json_type(new.metadata) = 'object';
        END;
        """
    )


def _widen_check(conn: apsw.Connection, table: str, old: str, new: str) -> None:
    """Let a CHECK ... IN (...) list accept more values. SQLite cannot alter a CHECK, and
    context_entries is the parent of five tables, its FTS index and its vectors, so it is
    not rebuilt: its stored CREATE statement is edited in place, the procedure SQLite's
    documentation gives for changes that leave every stored row valid (a longer list
    does). The schema cookie moves so any other connection reloads the schema."""
    row = conn.execute(
        "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    assert row is not None, table
    widened, n = re.subn(old, new, str(row[0]))
    if n != 1:
        raise RuntimeError(f"{table}: expected one CHECK matching {old!r}, found {n}")
    cookie = conn.execute("PRAGMA schema_version").fetchone()
    assert cookie is not None
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", (widened, table)
    )
    conn.execute(f"PRAGMA schema_version = {int(cookie[0]) + 1}")
    conn.execute("PRAGMA writable_schema = RESET")


def m009_tasks_logs(conn: apsw.Connection) -> None:
    """Issue 11: tasks (a status, a due date) and daily logs are memories of types of their
    own, and a task's status changes are versions of their own ('status', holding the
    status then). Existing entries are neither: their status stays null."""
    _widen_check(
        conn,
        "context_entries",
        r"'convention', 'pattern'\)",
        "'convention', 'pattern', 'task', 'log')",
    )
    _widen_check(conn, "context_versions", r"'merged'\)", "'merged', 'status')")
    conn.execute(
        """
        ALTER TABLE context_entries ADD COLUMN status TEXT
            CHECK (status IN ('open', 'in_progress', 'blocked', 'done'));
        ALTER TABLE context_entries ADD COLUMN due TEXT;
        ALTER TABLE context_versions ADD COLUMN status TEXT;
        CREATE INDEX idx_entries_task_status ON context_entries(status, importance)
            WHERE status IS NOT NULL;
        -- The brief reads the most important entries of a type without sorting all of them.
        CREATE INDEX idx_entries_type_importance ON context_entries(content_type, importance);
        """
    )


def m010_sources(conn: apsw.Connection) -> None:
    """Issue 11: the file a memory cites, as it was when the memory was written or last
    confirmed (sha256 of its bytes, mtime and size: a recall compares the cheap two
    first), and the Markdown files `index` mirrors. A table of its own, not columns of
    context_entries: most entries cite no file, and the row goes with its entry.

    A mirror (`anchor` not null) is a chunk of an indexed file: `anchor` is its key
    within the file (heading slug, `~N` for the Nth part of a long section). The
    folders and files `index` was given are kept in context_index_roots, so the
    daemon can watch them."""
    conn.execute(
        """
        CREATE TABLE context_sources (
            rid INTEGER PRIMARY KEY REFERENCES context_entries(rid) ON DELETE CASCADE,
            path TEXT NOT NULL,
            hash TEXT,
            mtime_ns INTEGER,
            size INTEGER,
            anchor TEXT
        );
        CREATE INDEX idx_sources_path ON context_sources(path);
        CREATE TABLE context_index_roots (
            path TEXT PRIMARY KEY,
            globs TEXT NOT NULL,
            content_type TEXT NOT NULL,
            added_at TEXT NOT NULL
        );
        """
    )


def m011_passages(conn: apsw.Connection) -> None:
    """Issue 13: a long memory's passages, one vector each (embedder/passages.py), which
    recall scores besides the whole text's. A plain table, not vec0: the in-memory index
    serves every search, so this only has to keep the vectors and give up an entry's
    all at once; its key orders them as the index does. Entries stored before have
    none: the daemon gives them theirs in the background, up to the rid recorded here
    (service/upkeep/backfill.py reads the key)."""
    conn.execute(
        """
        CREATE TABLE context_passages (
            rid INTEGER NOT NULL REFERENCES context_entries(rid) ON DELETE CASCADE,
            ord INTEGER NOT NULL,
            embedding BLOB NOT NULL,
            PRIMARY KEY (rid, ord)
        ) WITHOUT ROWID;
        INSERT INTO enyal_meta(key, value)
            SELECT 'passages_backfill_rid', (SELECT max(rid) FROM context_entries)
            WHERE EXISTS (SELECT 1 FROM context_entries);
        """
    )


def m012_secure_delete(conn: apsw.Connection) -> None:
    """Issue 24: text deleted for good leaves nothing. FTS5 by default keeps a deleted
    row's terms in its segments (under a delete marker) until a merge; with
    'secure-delete' a delete takes them out of the segment at once. Kept in the index's
    own config, so every connection's deletes do it."""
    conn.execute("INSERT INTO context_fts(context_fts, rank) VALUES ('secure-delete', 1)")


def m013_versions_release_importance(conn: apsw.Connection) -> None:
    """Issue 24: a release is a change of its own in an entry's history ('released'),
    and a version keeps the entry's importance, so restoring it brings that back too.
    Versions written before hold no importance (null): restoring one keeps the entry's."""
    _widen_check(conn, "context_versions", r"'status'\)", "'status', 'released')")
    conn.execute("ALTER TABLE context_versions ADD COLUMN importance INTEGER")


def m014_cjk_bigrams(conn: apsw.Connection) -> None:
    """A side keyword index of CJK text as bigrams (store/cjk.py says why), kept by
    triggers that run only for content holding a CJK character. Contentless: the
    bigrams are never read back, only matched; contentless_delete lets a trigger
    delete a row by its rid alone."""
    glob = cjk.CJK_GLOB.replace("'", "''")
    fn = cjk.SQL_FUNCTION
    conn.execute(
        f"""
        CREATE VIRTUAL TABLE context_cjk USING fts5(
            bigrams, content='', contentless_delete=1, tokenize='unicode61'
        );
        CREATE TRIGGER context_cjk_insert AFTER INSERT ON context_entries
            WHEN new.content GLOB '{glob}' BEGIN
            INSERT INTO context_cjk(rowid, bigrams) VALUES (new.rid, {fn}(new.content));
        END;
        CREATE TRIGGER context_cjk_delete AFTER DELETE ON context_entries
            WHEN old.content GLOB '{glob}' BEGIN
            DELETE FROM context_cjk WHERE rowid = old.rid;
        END;
        CREATE TRIGGER context_cjk_update AFTER UPDATE OF content ON context_entries BEGIN
            DELETE FROM context_cjk WHERE rowid = old.rid AND old.content GLOB '{glob}';
            INSERT INTO context_cjk(rowid, bigrams)
                SELECT new.rid, {fn}(new.content) WHERE new.content GLOB '{glob}';
        END;
        INSERT INTO context_cjk(rowid, bigrams)
            SELECT rid, {fn}(content) FROM context_entries WHERE content GLOB '{glob}';
        -- A deleted row's bigrams leave the index at once, as the main index's terms do
        -- where secure-delete is on: a memory deleted for good leaves no text behind.
        INSERT INTO context_cjk(context_cjk, rank) VALUES ('secure-delete', 1);
        """
    )


def m015_auto_memory_roots(conn: apsw.Connection) -> None:
    """Issue 29: an indexed folder may be Claude Code's auto memory of a project (the
    project's path; null for any other folder), so the watcher reads it as such."""
    conn.execute("ALTER TABLE context_index_roots ADD COLUMN auto_memory_of TEXT")


def m016_project_keys(conn: apsw.Connection) -> None:
    """Issue 27: a project and its files are stored by the project's key and the path
    from its root (projects.py), not by absolute paths, so another checkout finds them.
    Each stored absolute path is resolved as the daemon resolves a path now, reading
    the folders as they are (a folder gone is placed by what is left above it; a path
    in no repository with a remote keeps its absolute form, which is its place). A
    file source_ref is placed the same way, and so is the project named in the key of
    when it was last briefed; workspaces stay paths. Nothing is lost:
    context_project_roots keeps each root seen with its key, so root + the path from
    it gives back the absolute path, and it is how a checkout whose remote changes is
    told apart from another repository (service/core/identity.py)."""
    conn.execute(
        """
        CREATE TABLE context_project_roots (
            root TEXT PRIMARY KEY,
            key TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX idx_project_roots_key ON context_project_roots(key);
        """
    )
    roots: dict[str, str] = {}

    def placed(path: str) -> str:
        project = projects.project_of(path)
        roots[project.root] = project.key
        return project.place(path)

    rows = conn.execute(
        "SELECT DISTINCT scope_path FROM context_entries "
        "WHERE scope_level IN ('project', 'file') AND scope_path LIKE '/%'"
    ).fetchall()
    for (path,) in rows:
        new = placed(str(path))
        if new != path:
            conn.execute(
                "UPDATE context_entries SET scope_path = ? "
                "WHERE scope_level IN ('project', 'file') AND scope_path = ?",
                (new, path),
            )
    refs = conn.execute(
        "SELECT DISTINCT source_ref FROM context_entries "
        "WHERE source_type = 'file' AND source_ref LIKE '/%'"
    ).fetchall()
    for (ref,) in refs:
        path, suffix = projects.split_ref(str(ref))
        new = placed(path) + suffix
        if new != ref:
            conn.execute(
                "UPDATE context_entries SET source_ref = ? "
                "WHERE source_type = 'file' AND source_ref = ?",
                (new, ref),
            )
    briefs = conn.execute(
        "SELECT key FROM enyal_meta WHERE key >= ? AND key < ?",
        (meta.BRIEFED + "/", meta.BRIEFED + "0"),
    ).fetchall()
    for (name,) in briefs:
        root = str(name)[len(meta.BRIEFED) :]
        new = meta.BRIEFED + placed(root)
        if new != name:  # another root's brief of the project, placed first, stands
            conn.execute("UPDATE OR IGNORE enyal_meta SET key = ? WHERE key = ?", (new, name))
    conn.executemany(
        "INSERT INTO context_project_roots(root, key) VALUES (?, ?)", sorted(roots.items())
    )


def m017_shared(conn: apsw.Connection) -> None:
    """Issue 27: a project's shared memories, written to `.enyal/` in its repository.
    context_shared marks an entry shared: the repository folder its file is written to,
    the sha256 of the file as last written or read (null: not written yet, so a start
    writes it) and the entry's version then (a newer one: the file is behind), and why a
    person should look at it (edited on two branches), if so. context_shared_roots are
    the repositories whose `.enyal/` the daemon reads, each with its rule (the types
    shared as they are remembered); context_shared_problems the files there it could
    not read, each with the reason, until the file changes. A memory read from there
    was written by the repository (written_by 'repository')."""
    # Idempotent (IF NOT EXISTS, a CHECK widened once): a store rewound to an older
    # schema number by hand, as tests/test_identity.py does, runs it again.
    table = conn.execute(
        "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'context_entries'"
    ).fetchone()
    if table is not None and "'repository'" not in str(table[0]):
        _widen_check(
            conn,
            "context_entries",
            r"'import', 'file'\)",
            "'import', 'file', 'repository')",
        )
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS context_shared (
            rid INTEGER PRIMARY KEY REFERENCES context_entries(rid) ON DELETE CASCADE,
            root TEXT NOT NULL,
            file_hash TEXT,
            version INTEGER,
            review TEXT
        );
        CREATE INDEX IF NOT EXISTS idx_shared_root ON context_shared(root);
        CREATE TABLE IF NOT EXISTS context_shared_roots (
            root TEXT PRIMARY KEY,
            types TEXT NOT NULL DEFAULT '[]',
            added_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS context_shared_problems (
            root TEXT NOT NULL,
            name TEXT NOT NULL,
            reason TEXT NOT NULL,
            file_hash TEXT NOT NULL,
            seen_at TEXT NOT NULL,
            PRIMARY KEY (root, name)
        );
        """
    )


def m018_hub(conn: apsw.Connection) -> None:
    """Issue 28: the daemon as a replica of a team hub (docs/ARCHITECTURE.md, "The
    replica"). hub_state: this home's device id, Lamport clock, cursor, URL and status.
    hub_spaces: the spaces joined; hub_rules: project key -> space. hub_memories: a
    memory's space and its current version (clock, device), the version it was based
    on, the digest of the state last sent or applied, and why to review it.
    hub_conflicts: a concurrent version that lost, kept. hub_tombstones: hard deletes,
    kept for good. hub_edges: each (from, to, kind)'s last version. hub_outbox: changes
    to push, in order. hub_applied: change ids applied (or made) here."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS hub_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS hub_spaces (space TEXT PRIMARY KEY, joined_at TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS hub_rules (project TEXT PRIMARY KEY, space TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS hub_memories (
            memory_id TEXT PRIMARY KEY,
            space TEXT NOT NULL,
            clock INTEGER NOT NULL DEFAULT 0,
            device TEXT NOT NULL DEFAULT '',
            based_clock INTEGER NOT NULL DEFAULT 0,
            based_device TEXT NOT NULL DEFAULT '',
            digest TEXT,
            review TEXT
        );
        CREATE TABLE IF NOT EXISTS hub_conflicts (
            memory_id TEXT NOT NULL,
            clock INTEGER NOT NULL,
            device TEXT NOT NULL,
            body BLOB NOT NULL,
            PRIMARY KEY (memory_id, clock, device)
        );
        CREATE TABLE IF NOT EXISTS hub_tombstones (
            memory_id TEXT PRIMARY KEY,
            space TEXT NOT NULL,
            clock INTEGER NOT NULL,
            device TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS hub_edges (
            source TEXT NOT NULL,
            target TEXT NOT NULL,
            kind TEXT NOT NULL,
            clock INTEGER NOT NULL,
            device TEXT NOT NULL,
            present INTEGER NOT NULL,
            PRIMARY KEY (source, target, kind)
        );
        CREATE TABLE IF NOT EXISTS hub_outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            change_id TEXT NOT NULL UNIQUE,
            space TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            clock INTEGER NOT NULL,
            device TEXT NOT NULL,
            kind TEXT NOT NULL,
            body BLOB NOT NULL,
            vector BLOB,
            model_id TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS hub_applied (change_id TEXT PRIMARY KEY);
        """
    )


def m019_hub_applied_seq(conn: apsw.Connection) -> None:
    """Issue 28's hub_applied grew for ever: each applied change id now keeps the hub log
    position it was applied from and its space, so the ids no pull can bring again are
    pruned (docs/ARCHITECTURE.md, "The replica"). Rows from before stay (no position:
    never pruned)."""
    # Idempotent like the CREATE ... IF NOT EXISTS before it: a store whose schema number
    # was set back (a restored backup's, test_identity's) runs it a second time.
    have = {str(row[1]) for row in conn.execute("PRAGMA table_info(hub_applied)")}
    for column, kind in (("seq", "INTEGER"), ("space", "TEXT")):
        if column not in have:
            conn.execute(f"ALTER TABLE hub_applied ADD COLUMN {column} {kind}")


def m020_junk_roots(conn: apsw.Connection) -> None:
    """Roots older releases registered that this one never would: a folder in no git
    repository ($HOME, /tmp, `/` for a path that did not exist) or one that is not its
    project's root (a `.git` folder, a worktree's git dir below it). As a repository
    whose `.enyal/` is read (context_shared_roots) each was listed every second and
    shown by status; as a project root seen (context_project_roots) each answered for
    places it does not hold. Each is dropped, with the problems recorded for it; a memory
    shared into one stays, no longer shared (no one commits that folder). A root that is
    not there is kept: a checkout moved or removed is identity's and the sharer's to
    handle, and nothing can be read of it here."""
    tables = {
        str(r[0]) for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")
    }
    for table in ("context_shared_roots", "context_project_roots"):
        if table not in tables:
            continue
        for (root,) in conn.execute(f"SELECT root FROM {table}").fetchall():
            if not _junk_root(str(root)):
                continue
            conn.execute(f"DELETE FROM {table} WHERE root = ?", (root,))
            if table == "context_shared_roots":
                conn.execute("DELETE FROM context_shared WHERE root = ?", (root,))
                conn.execute("DELETE FROM context_shared_problems WHERE root = ?", (root,))


def m021_hub_space_counts(conn: apsw.Connection) -> None:
    """`hub status` (and doctor, the web view) joined hub_memories to the entries on
    every call: ~1 ms at 3,000 memories of a space, growing with it, and polled during a
    sync. hub_space_counts keeps, per space, the count that join gives (a member whose
    entry is stored), updated by triggers in the statement that changes either side,
    so every write path keeps it (a pulled put, a local write, a hard delete here or
    pulled, one no capture saw) in its own transaction. The partial index answers the
    memories to review (status's conflicts, review's list) without reading the others."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS hub_space_counts (
            space TEXT PRIMARY KEY,
            memories INTEGER NOT NULL
        );
        DELETE FROM hub_space_counts;
        INSERT INTO hub_space_counts (space, memories)
            SELECT m.space, count(*) FROM hub_memories m
            JOIN context_entries e ON e.id = m.memory_id GROUP BY m.space;
        CREATE TRIGGER IF NOT EXISTS hub_counts_member_in AFTER INSERT ON hub_memories
        WHEN EXISTS (SELECT 1 FROM context_entries WHERE id = new.memory_id) BEGIN
            INSERT INTO hub_space_counts (space, memories) VALUES (new.space, 1)
                ON CONFLICT (space) DO UPDATE SET memories = memories + 1;
        END;
        CREATE TRIGGER IF NOT EXISTS hub_counts_member_out AFTER DELETE ON hub_memories
        WHEN EXISTS (SELECT 1 FROM context_entries WHERE id = old.memory_id) BEGIN
            UPDATE hub_space_counts SET memories = memories - 1 WHERE space = old.space;
        END;
        CREATE TRIGGER IF NOT EXISTS hub_counts_member_moved
        AFTER UPDATE OF space, memory_id ON hub_memories
        WHEN old.space IS NOT new.space OR old.memory_id IS NOT new.memory_id BEGIN
            UPDATE hub_space_counts SET memories = memories - 1 WHERE space = old.space
                AND EXISTS (SELECT 1 FROM context_entries WHERE id = old.memory_id);
            INSERT INTO hub_space_counts (space, memories)
                SELECT new.space, 1 WHERE EXISTS
                    (SELECT 1 FROM context_entries WHERE id = new.memory_id)
                ON CONFLICT (space) DO UPDATE SET memories = memories + 1;
        END;
        CREATE TRIGGER IF NOT EXISTS hub_counts_entry_in AFTER INSERT ON context_entries
        WHEN EXISTS (SELECT 1 FROM hub_memories WHERE memory_id = new.id) BEGIN
            INSERT INTO hub_space_counts (space, memories)
                SELECT space, 1 FROM hub_memories WHERE memory_id = new.id
                ON CONFLICT (space) DO UPDATE SET memories = memories + 1;
        END;
        CREATE TRIGGER IF NOT EXISTS hub_counts_entry_out AFTER DELETE ON context_entries
        WHEN EXISTS (SELECT 1 FROM hub_memories WHERE memory_id = old.id) BEGIN
            UPDATE hub_space_counts SET memories = memories - 1
                WHERE space = (SELECT space FROM hub_memories WHERE memory_id = old.id);
        END;
        CREATE INDEX IF NOT EXISTS hub_memories_review ON hub_memories (memory_id)
            WHERE review IS NOT NULL;
        """
    )


def m022_hub_outbox_depth(conn: apsw.Connection) -> None:
    """`hub status`'s outbox depth was a count(*) of hub_outbox, which reads every page
    of its smallest index: it grew with the outbox (a laptop offline for a week), and
    status is polled. hub_outbox_depth keeps it, one row moved by a trigger on each
    row appended or pushed, in the statement's own transaction."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS hub_outbox_depth (n INTEGER NOT NULL);
        DELETE FROM hub_outbox_depth;
        INSERT INTO hub_outbox_depth (n) SELECT count(*) FROM hub_outbox;
        CREATE TRIGGER IF NOT EXISTS hub_outbox_depth_in AFTER INSERT ON hub_outbox BEGIN
            UPDATE hub_outbox_depth SET n = n + 1;
        END;
        CREATE TRIGGER IF NOT EXISTS hub_outbox_depth_out AFTER DELETE ON hub_outbox BEGIN
            UPDATE hub_outbox_depth SET n = n - 1;
        END;
        """
    )


def m023_deleted_ids(conn: apsw.Connection) -> None:
    """The ids of memories deleted for good (store/deleted.py), so `history` or
    `restore` of one says it is gone for good, not that it never was. Only ids and
    times: a hard delete still leaves no byte of the text (m012)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS context_deleted "
        "(id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL) WITHOUT ROWID"
    )


def m024_access(conn: apsw.Connection) -> None:
    """The access bookkeeping (accessed_at, access_count) moves out of context_entries'
    wide rows into a narrow table keyed by rid (store/access.py): a flush of a batch of
    recalls' counts rewrote a page an entry beside the text (1,138 WAL pages after 150
    recalls at 10k), ~100 rows share a page here. Entries never read get no row.

    The old columns are dropped, not left unused, so the counts are said in one place
    (a stale copy beside the text would be read by the next query written against the
    table). ALTER TABLE ... DROP COLUMN (SQLite 3.35) is safe here: neither column is in
    an index, a constraint, a trigger or a view, SQLite checks the schema it leaves and
    fails the statement (and this migration's transaction) otherwise, and the rewrite of
    each row it makes runs in this transaction with the copy, under secure_delete (m012).
    It rewrites the table once, as a migration may. Run again on a store past it (as
    tests replaying later migrations do) it finds the columns gone and does nothing."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS context_access (
            rid INTEGER PRIMARY KEY,
            accessed_at TEXT,
            access_count INTEGER NOT NULL DEFAULT 0
        );
        CREATE TRIGGER IF NOT EXISTS context_access_delete AFTER DELETE ON context_entries
        BEGIN
            DELETE FROM context_access WHERE rid = old.rid;
        END;
        """
    )
    columns = {str(r[1]) for r in conn.execute("PRAGMA table_info(context_entries)")}
    if "access_count" not in columns:
        return
    conn.execute(
        """
        INSERT INTO context_access (rid, accessed_at, access_count)
            SELECT rid, accessed_at, access_count FROM context_entries
            WHERE access_count <> 0 OR accessed_at IS NOT NULL;
        ALTER TABLE context_entries DROP COLUMN accessed_at;
        ALTER TABLE context_entries DROP COLUMN access_count;
        """
    )


def m025_recall_events(conn: apsw.Connection) -> None:
    """A recall's usage events (one a hit shown) move out of context_analytics into one
    row a recall, context_recalls (store/analytics.py): a flush after 150 recalls wrote
    ~1,500 rows and both their indexes, ~240 WAL pages and ~15 ms of the writer's CPU.

    The old rows are kept, as rows of a recall: the events of one recall are those of one
    time and query whose ids and ranks follow each other, and each keeps its id and rank
    (a hit not written, its entry deleted before the flush, starts another row, whose
    first_rank says where). An entry deleted takes its hits with it, as context_analytics'
    ON DELETE CASCADE does, by trigger: a null in its place, and the query too when no hit
    is left (the row's ids stay taken until it is pruned). No index by entry is kept (it
    was the flush's random writes), so the trigger reads every row for the id's text, and
    only for an entry that has an access row: one never shown has no row, nor any recall
    event. Run again on a store past it, it finds nothing to move."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS context_recalls (
            id INTEGER PRIMARY KEY,
            event_at TEXT NOT NULL,
            query TEXT,
            hits TEXT NOT NULL,
            first_rank INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX IF NOT EXISTS idx_recalls_time ON context_recalls(event_at);
        CREATE TRIGGER IF NOT EXISTS context_recalls_delete BEFORE DELETE ON context_entries
        WHEN EXISTS (SELECT 1 FROM context_access WHERE rid = old.rid)
        BEGIN
            UPDATE context_recalls SET
                hits = json_replace(hits,
                    '$[' || (SELECT key FROM json_each(hits) WHERE value = old.id) || ']', NULL),
                query = CASE WHEN EXISTS (SELECT 1 FROM json_each(hits)
                    WHERE value IS NOT NULL AND value <> old.id) THEN query END
            WHERE instr(hits, json_quote(old.id)) > 0
                AND EXISTS (SELECT 1 FROM json_each(hits) WHERE value = old.id);
        END;
        """
    )
    # What lets a delete skip the scan: an entry shown by a recall has an access row (the
    # flush writes a recall's counts before its events). One whose counts were set back
    # by hand may have none: it gets one that reads as none (rows.ACCESS).
    conn.execute(
        "INSERT OR IGNORE INTO context_access (rid) SELECT rid FROM context_entries WHERE id IN "
        "(SELECT entry_id FROM context_analytics WHERE event_type = 'recall')"
    )
    rows: list[tuple[int, str, str | None, list[str], int]] = []  # id, when, query, ids, rank
    last: tuple[int, str, str | None, int] | None = None  # the previous event's
    for event_id, entry_id, when, query, rank in conn.execute(
        "SELECT id, entry_id, event_at, query, result_rank FROM context_analytics "
        "WHERE event_type = 'recall' ORDER BY id"
    ):
        event_rank = 1 if rank is None else int(rank)
        if last is not None and last == (event_id - 1, when, query, event_rank - 1):
            rows[-1][3].append(entry_id)
        else:
            rows.append((event_id, when, query, [entry_id], event_rank))
        last = (event_id, when, query, event_rank)
    conn.executemany(
        "INSERT INTO context_recalls (id, event_at, query, hits, first_rank) "
        "VALUES (?, ?, ?, ?, ?)",
        [(i, when, q, msgspec.json.encode(ids).decode(), r) for i, when, q, ids, r in rows],
    )
    conn.execute("DELETE FROM context_analytics WHERE event_type = 'recall'")


def _junk_root(root: str) -> bool:
    """A folder that is there and is not the root of a project in a git repository:
    what registering a root needs now (service/files/shared_files.py in_repository,
    service/core/identity.py)."""
    if not os.path.isabs(root) or not os.path.isdir(root):
        return False
    project = projects.project_of(os.path.normpath(root))
    return project.top is None or project.root != root


def m026_entries_view(conn: apsw.Connection) -> None:
    """An index of the columns a recall's filter reads (store/filters.py, VIEW_COLUMNS),
    by rid: the keyword search joins each match to its entry to check the asker's view,
    and through the table that read whole rows (id, hash, times, tags, metadata: ~10 to
    a page), ~1,670 page reads over ~5 MB a recall at 10k, beyond a reader's 2 MB cache.
    Through this index (~60 to a page) the same check reads a sixth of it
    (index/keywords.py, `_bm25`). An older binary ignores it; SQLite keeps it on write."""
    conn.execute(
        "CREATE INDEX IF NOT EXISTS idx_entries_view ON context_entries"
        "(rid, scope_path, scope_level, content_type, is_deprecated, quarantined)"
    )


def m027_hub_spaces_held(conn: apsw.Connection) -> None:
    """A replica applied every space its hub role reads, joined here or not (one joined
    on the role's other machine); now it keeps those joined here and passes over the
    rest (service/hub/converge.py, `prepare`). A space whose memories or tombstones a
    store holds from before is joined here, so that its later changes (an edit, a hard
    delete) still reach them; `hub status` lists it."""
    conn.execute(
        "INSERT INTO hub_spaces (space, joined_at) "
        "SELECT DISTINCT space, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM ("
        "SELECT space FROM hub_memories UNION SELECT space FROM hub_tombstones) "
        "WHERE true ON CONFLICT (space) DO NOTHING"
    )


Migration = Callable[[apsw.Connection], None]
MIGRATIONS: list[Migration] = [
    m001_entries,
    m002_meta,
    m003_graph_versions_analytics,
    m004_tags,
    m005_importance_expiry,
    m006_provenance_quarantine,
    m007_access_confirm_merge,
    m008_metadata_index,
    m009_tasks_logs,
    m010_sources,
    m011_passages,
    m012_secure_delete,
    m013_versions_release_importance,
    m014_cjk_bigrams,
    m015_auto_memory_roots,
    m016_project_keys,
    m017_shared,
    m018_hub,
    m019_hub_applied_seq,
    m020_junk_roots,
    m021_hub_space_counts,
    m022_hub_outbox_depth,
    m023_deleted_ids,
    m024_access,
    m025_recall_events,
    m026_entries_view,
    m027_hub_spaces_held,
]


def current_version(conn: apsw.Connection) -> int:
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def migrate(conn: apsw.Connection, upto: int | None = None) -> int:
    """Bring the schema to `upto` (default: the newest). Returns the version reached."""
    target = len(MIGRATIONS) if upto is None else upto
    version = current_version(conn)
    while version < target:
        step = MIGRATIONS[version]
        with conn:  # one transaction per migration
            step(conn)
            version += 1
            conn.execute("INSERT INTO schema_version(version) VALUES (?)", (version,))
    return version

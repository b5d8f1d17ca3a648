"""The hub's schema in PostgreSQL, and its migrations (docs/ARCHITECTURE.md, "Beyond one
machine", "The hub").

Everything lives in the schema `enyal_hub`, owned by the role that ran the first
`init_schema` — the hub's owner role, never a member (row security binds a table's owner
only because the tables FORCE it, and an owner could switch it off). Members reach the
tables through the group role `enyal_member`, which holds SELECT and INSERT and nothing
else: the log is append-only, a hard delete travels as a tombstone change.

Row security, with `current_user` as the member:
- spaces: anyone reads the names (they also travel in NOTIFY payloads); a role creates
  one in its own name.
- invites: a member of a space invites a role into it; each side sees its own invites.
- members: a role sees its own memberships and adds itself to a space it created or was
  invited to.
- log: a member reads and appends rows of its spaces only, as itself (`author`).

Each migration runs once, in order, in the transaction that records its number, under a
transaction-level advisory lock: two machines running `enyal hub init` at once take
turns, and the second finds the work done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import HubUnavailable

if TYPE_CHECKING:
    import psycopg

SCHEMA = "enyal_hub"
MEMBER_GROUP = "enyal_member"  # the group role the admin grants to every member role
NOTIFY_CHANNEL = "enyal_hub"  # LISTEN/NOTIFY channel; the payload is the space's name

# pg_advisory_xact_lock keys: any constant bigint, unlikely to clash with an
# application sharing the database ("enyal" in ASCII, then a slot).
INIT_LOCK = 0x656E79616C_01
# Appends to the log take this lock until they commit, so rows become visible in `seq`
# order: a puller that sees seq n has seen every seq below it, and its cursor never
# skips a row that an earlier, slower transaction commits later.
APPEND_LOCK = 0x656E79616C_02

_V1 = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
REVOKE ALL ON SCHEMA {SCHEMA} FROM PUBLIC;
GRANT USAGE ON SCHEMA {SCHEMA} TO {MEMBER_GROUP};

CREATE TABLE {SCHEMA}.schema_version (version integer NOT NULL);
INSERT INTO {SCHEMA}.schema_version VALUES (0);
GRANT SELECT ON {SCHEMA}.schema_version TO {MEMBER_GROUP};

CREATE TABLE {SCHEMA}.spaces (
    name text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 200),
    created_by name NOT NULL DEFAULT current_user,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE {SCHEMA}.invites (
    space text NOT NULL REFERENCES {SCHEMA}.spaces,
    role name NOT NULL,
    invited_by name NOT NULL DEFAULT current_user,
    invited_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (space, role)
);
CREATE TABLE {SCHEMA}.members (
    space text NOT NULL REFERENCES {SCHEMA}.spaces,
    role name NOT NULL,
    joined_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (space, role)
);
CREATE INDEX members_role ON {SCHEMA}.members (role, space);

-- The change log. Only NOT NULLs here: the shape of a row is checked where it is read
-- (hub/link.py), so a row written by hand or by a newer Enyal is skipped and reported,
-- and never stops the log for everyone behind it.
CREATE TABLE {SCHEMA}.log (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    change_id text NOT NULL UNIQUE,
    space text NOT NULL REFERENCES {SCHEMA}.spaces,
    memory_id text NOT NULL,
    clock bigint NOT NULL,
    device text NOT NULL,
    kind text NOT NULL,
    body bytea NOT NULL,
    vector bytea,
    model_id text NOT NULL,
    author name NOT NULL DEFAULT current_user,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX log_space_seq ON {SCHEMA}.log (space, seq);

GRANT SELECT, INSERT ON {SCHEMA}.spaces, {SCHEMA}.invites, {SCHEMA}.members
    TO {MEMBER_GROUP};
GRANT SELECT, INSERT ON {SCHEMA}.log TO {MEMBER_GROUP};
REVOKE UPDATE, DELETE, TRUNCATE ON {SCHEMA}.log FROM PUBLIC, {MEMBER_GROUP};

ALTER TABLE {SCHEMA}.spaces ENABLE ROW LEVEL SECURITY;
ALTER TABLE {SCHEMA}.spaces FORCE ROW LEVEL SECURITY;
ALTER TABLE {SCHEMA}.invites ENABLE ROW LEVEL SECURITY;
ALTER TABLE {SCHEMA}.invites FORCE ROW LEVEL SECURITY;
ALTER TABLE {SCHEMA}.members ENABLE ROW LEVEL SECURITY;
ALTER TABLE {SCHEMA}.members FORCE ROW LEVEL SECURITY;
ALTER TABLE {SCHEMA}.log ENABLE ROW LEVEL SECURITY;
ALTER TABLE {SCHEMA}.log FORCE ROW LEVEL SECURITY;

CREATE POLICY spaces_read ON {SCHEMA}.spaces FOR SELECT USING (true);
CREATE POLICY spaces_create ON {SCHEMA}.spaces FOR INSERT
    WITH CHECK (created_by = current_user);

-- The members policies read only the caller's own rows of `members`, so no policy
-- reads a table whose policy reads it back (PostgreSQL refuses such recursion).
CREATE POLICY members_read ON {SCHEMA}.members FOR SELECT USING (role = current_user);
CREATE POLICY members_join ON {SCHEMA}.members FOR INSERT WITH CHECK (
    role = current_user AND (
        EXISTS (SELECT 1 FROM {SCHEMA}.spaces s
                WHERE s.name = space AND s.created_by = current_user)
        OR EXISTS (SELECT 1 FROM {SCHEMA}.invites i
                   WHERE i.space = members.space AND i.role = current_user)));

CREATE POLICY invites_read ON {SCHEMA}.invites FOR SELECT
    USING (role = current_user OR invited_by = current_user);
CREATE POLICY invites_send ON {SCHEMA}.invites FOR INSERT WITH CHECK (
    invited_by = current_user
    AND space IN (SELECT m.space FROM {SCHEMA}.members m WHERE m.role = current_user));

CREATE POLICY log_read ON {SCHEMA}.log FOR SELECT
    USING (space IN (SELECT m.space FROM {SCHEMA}.members m WHERE m.role = current_user));
CREATE POLICY log_append ON {SCHEMA}.log FOR INSERT WITH CHECK (
    author = current_user
    AND space IN (SELECT m.space FROM {SCHEMA}.members m WHERE m.role = current_user));

-- Both trigger functions run as the inserting role (SECURITY INVOKER): taking an
-- advisory lock and notifying need no privilege.
CREATE FUNCTION {SCHEMA}.log_append_lock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock({APPEND_LOCK});
    RETURN NULL;
END $$;
CREATE TRIGGER log_append_lock BEFORE INSERT ON {SCHEMA}.log
    FOR EACH STATEMENT EXECUTE FUNCTION {SCHEMA}.log_append_lock();

CREATE FUNCTION {SCHEMA}.log_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s text;
BEGIN
    FOR s IN SELECT DISTINCT space FROM appended LOOP
        PERFORM pg_notify('{NOTIFY_CHANNEL}', s);
    END LOOP;
    RETURN NULL;
END $$;
CREATE TRIGGER log_notify AFTER INSERT ON {SCHEMA}.log
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION {SCHEMA}.log_notify();
REVOKE ALL ON FUNCTION {SCHEMA}.log_append_lock(), {SCHEMA}.log_notify() FROM PUBLIC;
"""

# A hard delete leaves no text on the hub (issue 24's "deleted for good", issue 28's
# tombstones): when a memory's tombstone is appended, its earlier puts in the space are
# emptied in place (kind `purged`, body `{}` as a tombstone's, vector gone), and a put
# that arrives after its tombstone (a replica's outbox draining late) is emptied as it
# lands. The log stays append-only for members (they hold no UPDATE); the trigger's
# function runs as the schema's owner, whose forced row security lets it read and
# empty puts only while the function says so (a transaction-local setting), so the
# owner still reads no row otherwise. PostgreSQL keeps the old row versions until a
# vacuum (autovacuum's). The index on memory_id finds a memory's rows (one a space's
# pull would not take instead of (space, seq)); `deleted` lists the memories whose
# tombstone was appended, for the late puts.
_PURGING = "current_setting('enyal_hub.purging', true) = 'on'"
_V2 = f"""
CREATE INDEX log_memory ON {SCHEMA}.log (memory_id);
CREATE TABLE {SCHEMA}.deleted (
    space text NOT NULL,
    memory_id text NOT NULL,
    PRIMARY KEY (space, memory_id)
);
REVOKE ALL ON {SCHEMA}.deleted FROM PUBLIC, {MEMBER_GROUP};
CREATE POLICY log_owner_reads ON {SCHEMA}.log FOR SELECT TO CURRENT_USER USING ({_PURGING});
CREATE POLICY log_owner_purges ON {SCHEMA}.log FOR UPDATE TO CURRENT_USER
    USING ({_PURGING} AND kind = 'put') WITH CHECK (kind = 'purged');
CREATE FUNCTION {SCHEMA}.log_purge() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    m record;
BEGIN
    -- The memories deleted for good, by id: a late put is found against this small
    -- table, not the log (whose (space, seq) index a probe by space would walk).
    INSERT INTO {SCHEMA}.deleted (space, memory_id)
        SELECT DISTINCT a.space, a.memory_id FROM appended a WHERE a.kind = 'delete'
        ON CONFLICT DO NOTHING;
    PERFORM set_config('enyal_hub.purging', 'on', true);
    FOR m IN SELECT a.seq FROM appended a JOIN {SCHEMA}.deleted d
             ON d.space = a.space AND d.memory_id = a.memory_id WHERE a.kind = 'put' LOOP
        UPDATE {SCHEMA}.log SET kind = 'purged', body = '\\x7b7d'::bytea, vector = NULL
        WHERE seq = m.seq;
    END LOOP;
    FOR m IN SELECT DISTINCT a.space, a.memory_id FROM appended a WHERE a.kind = 'delete'
    LOOP
        UPDATE {SCHEMA}.log SET kind = 'purged', body = '\\x7b7d'::bytea, vector = NULL
        WHERE seq IN (SELECT l.seq FROM {SCHEMA}.log l WHERE l.memory_id = m.memory_id)
          AND space = m.space AND kind = 'put';
    END LOOP;
    PERFORM set_config('enyal_hub.purging', 'off', true);
    RETURN NULL;
END $$;
CREATE TRIGGER log_purge AFTER INSERT ON {SCHEMA}.log
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION {SCHEMA}.log_purge();
REVOKE ALL ON FUNCTION {SCHEMA}.log_purge() FROM PUBLIC;
"""

# One SQL script per schema version, in order; never edit a released one, add the next.
MIGRATIONS: list[str] = [_V1, _V2]
VERSION = len(MIGRATIONS)


def init_schema(conn: psycopg.Connection[Any]) -> int:
    """Create or migrate the schema in one transaction on `conn` (autocommit off);
    the schema's version. A role that may not create it (a member, while the schema is
    missing or behind) gets HubUnavailable saying who must run it."""
    import psycopg

    who = ""
    try:
        with conn.transaction():
            who = str(_one(conn, "SELECT current_user"))
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (INIT_LOCK,))
            exists = _one(conn, f"SELECT to_regclass('{SCHEMA}.schema_version') IS NOT NULL")
            current: int = (
                _one(conn, f"SELECT version FROM {SCHEMA}.schema_version") if exists else 0
            )
            if current > VERSION:
                raise HubUnavailable(
                    f"the hub's schema is version {current}, newer than this Enyal's "
                    f"{VERSION}: upgrade Enyal on this machine"
                )
            for number in range(current, VERSION):
                conn.execute(MIGRATIONS[number])
                conn.execute(f"UPDATE {SCHEMA}.schema_version SET version = %s", (number + 1,))
    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.UndefinedObject) as e:
        # Scrubbed by the caller like every psycopg message; this one holds no URL.
        raise HubUnavailable(
            f"role {who or '?'} cannot create or migrate the hub's schema to version "
            f"{VERSION} ({e.diag.message_primary}): the hub's admin creates the group role "
            f"{MEMBER_GROUP} and runs `enyal hub init` once as the schema's owner role "
            "(docs/ARCHITECTURE.md, 'The hub')"
        ) from None
    return VERSION


def _one(conn: psycopg.Connection[Any], query: str) -> Any:
    row = conn.execute(query).fetchone()
    assert row is not None  # every query here returns one row
    return row[0]

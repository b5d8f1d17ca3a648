"""PgLink: the HubLink to a PostgreSQL hub, through psycopg 3 (the `hub` extra).

psycopg is imported when a link is made, so a daemon installed without the extra starts
and runs as before; asking it for a hub says what to install.

Two connections, both made on first use and again on the first call after one breaks
(so a hub that restarts needs no new link):
- `_conn` for everything but waiting: autocommit off, each call one transaction.
- `_listen` in autocommit for LISTEN/NOTIFY. It must reach PostgreSQL itself, or a
  session-mode pooler: a transaction-mode pooler (PgBouncer's `pool_mode = transaction`)
  hands the session back after each transaction, so the LISTEN is silently lost and only
  the polling fallback would wake the puller.

Credentials come only through libpq's usual means: the URL without a password, then
PGPASSFILE / ~/.pgpass, PGSSLMODE and friends. A URL with a password still works, but the
link never shows it: `redacted()` is what may be recorded or logged, and every error's
message is scrubbed (libpq repeats connection parameters in some messages).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlsplit

import msgspec

from ..errors import HubUnavailable
from . import schema
from .change import Change, HubLink, Pulled, Rejected
from .wake import Wake, readable

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")

CONNECT_TIMEOUT = 5  # seconds: a dead hub answers "unavailable", it never hangs a worker
STATEMENT_TIMEOUT_MS = 15_000  # a statement stuck on a lock or a sick server gives up
# Keepalives let the LISTEN connection notice a hub that vanished off the network (a
# closed socket is noticed at once); libpq ignores them on a Unix socket.
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5}

# The log's columns that carry a Change are named as its fields, in its order.
FIELDS: tuple[str, ...] = Change.__struct_fields__
LAST_SEQ = 2**63 - 1  # the log's seq is a bigint
_PG_TYPES = {"clock": "bigint", "body": "bytea", "vector": "bytea"}  # the rest are text
# A pull reads the text and number columns as one JSON array a row: psycopg's pure-Python
# build (where it is what is installed; `enyal[hub]` brings the binary one) reads each
# value through ctypes, and ten values a row cost 0.06 ms of CPU where four cost 0.03
# (3,000 rows in pages of 64), Python that a recall beside a catch-up waits behind.
_PACKED = tuple(name for name in FIELDS if _PG_TYPES.get(name) != "bytea")
_BYTES = tuple(name for name in FIELDS if _PG_TYPES.get(name) == "bytea")


def _range(space: str) -> str:
    """A pull's rows of one space (`space`: a placeholder or a column) after a position,
    as a range of the index on (space, seq), a page at most: (position, last, limit)."""
    return (
        f"SELECT seq, json_build_array({', '.join(_PACKED)}, author)::text, "
        f"{', '.join(_BYTES)} "
        f"FROM {schema.SCHEMA}.log WHERE (space, seq) > ({space}, %s) "
        f"AND (space, seq) <= ({space}, %s) ORDER BY space, seq LIMIT %s"
    )


# -- the URL, shown without its password ---------------------------------------------

_KV_PASSWORD = re.compile(r"""(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)""", re.IGNORECASE)
_URL_PASSWORD = re.compile(r"(postgres(?:ql)?://[^:/@\s]*:)([^@\s]*)(@)", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"([?&])(password=)[^&\s]*(&?)", re.IGNORECASE)


# What libpq's "no password supplied" leaves unsaid: where the password goes (never the
# URL), and that it is the daemon's environment libpq reads, fixed when it started.
NO_PASSWORD_FOUND = (
    " (put the role's password in ~/.pgpass as HOST:PORT:DATABASE:ROLE:PASSWORD, mode"
    " 600, or set PGPASSFILE or PGPASSWORD where the daemon starts: one already running"
    " keeps the environment it started with, so `enyal daemon stop` after setting them)"
)


def url_has_password(url: str) -> bool:
    """True if `url` (a postgresql:// URL or a key=value string) carries a password."""
    return _password_of(url) is not None


def redacted(url: str) -> str:
    """`url` with any password replaced by `***`: what may be recorded or logged."""
    return _scrub(url, None)


def without_password(url: str) -> str:
    """`url` with its password taken out (not masked): the URL to record instead, which
    a refusal offers to be run again as it is printed (`me:***@` would still carry one)."""
    url = _URL_PASSWORD.sub(lambda m: m[1][:-1] + m[3], url)  # `me:…@` → `me@`
    url = re.sub(r"[?&]$", "", _QUERY_PASSWORD.sub(r"\1", url))
    return re.sub(r"\s*" + _KV_PASSWORD.pattern, "", url, flags=re.IGNORECASE).strip()


def _password_of(url: str) -> str | None:
    if "://" in url:
        parts = urlsplit(url)
        if parts.password is not None:
            return unquote(parts.password)
        query = re.search(r"(?:^|&)password=([^&]*)", parts.query)
        return unquote(query.group(1)) if query else None
    found = _KV_PASSWORD.search(url)
    return found.group(2).strip("'") if found else None


def _scrub(text: str, password: str | None) -> str:
    text = _URL_PASSWORD.sub(r"\1***\3", text)
    text = _KV_PASSWORD.sub(r"\1***", text)
    text = _QUERY_PASSWORD.sub(r"\1\2***\3", text)
    if password:
        text = text.replace(password, "***")
    return text


# -- a pulled row, checked for the shape the hub can know ----------------------------

_HEX32 = re.compile(r"[0-9a-f]{32}")
_KIND = re.compile(r"[a-z][a-z0-9_.-]{0,39}")
MAX_TEXT = 200  # space, memory id, device and model id are names, not payloads


def row_to_change(row: Sequence[Any]) -> Pulled | Rejected:
    """A log row as `pull` reads it (seq, the _PACKED columns and the author as a JSON
    array, then the _BYTES columns) as a Pulled change, or Rejected with why. Only shape
    is checked here (types, ids, a JSON object for body, whole float32s for vector): what
    a change means is the replica's to judge."""
    seq = int(row[0])
    try:
        *packed, author = msgspec.json.decode(row[1])
        fields = dict(zip(_PACKED, packed, strict=True))
        fields.update(zip(_BYTES, row[2:], strict=True))
        change = msgspec.convert(fields, Change)
    except msgspec.ValidationError as e:
        return Rejected(seq, str(e))
    problem = shape_problem(change)
    return Rejected(seq, problem) if problem else Pulled(seq, change, str(author))


def shape_problem(change: Change) -> str | None:
    """What is wrong with the shape of `change`, if anything."""
    if not _HEX32.fullmatch(change.change_id):
        return "change_id is not 32 lowercase hex digits"
    for name in ("space", "memory_id", "device", "model_id"):
        value: str = getattr(change, name)
        if not value or len(value) > MAX_TEXT or not value.isprintable():
            return f"{name} is empty, over {MAX_TEXT} characters or not printable"
    if change.clock < 0:
        return "clock is negative"
    if not _KIND.fullmatch(change.kind):
        return "kind is not a short lowercase name"
    try:
        body = msgspec.json.decode(change.body)
    except msgspec.DecodeError:
        return "body is not JSON"
    if not isinstance(body, dict):
        return "body is not a JSON object"
    if change.vector is not None and (not change.vector or len(change.vector) % 4):
        return f"vector of {len(change.vector)} bytes is not whole float32s"
    return None


# -- the link ------------------------------------------------------------------------


class PgLink:
    """A HubLink to the PostgreSQL hub at `url`, as the role the URL names."""

    def __init__(
        self,
        url: str,
        *,
        connect_timeout: int = CONNECT_TIMEOUT,
        statement_timeout_ms: int = STATEMENT_TIMEOUT_MS,
    ) -> None:
        self._url = url
        self._password = _password_of(url)
        self._connect_timeout = connect_timeout  # the URL's own connect_timeout wins
        self._statement_timeout_ms = statement_timeout_ms
        self._conn: psycopg.Connection[Any] | None = None
        self._listen: psycopg.Connection[Any] | None = None
        self._psycopg = _import_psycopg()

    def __repr__(self) -> str:
        return f"PgLink({redacted(self._url)!r})"

    @property
    def url(self) -> str:
        """The URL without its password."""
        return redacted(self._url)

    # -- HubLink ---------------------------------------------------------------------

    def init_schema(self) -> int:
        return self._call(schema.init_schema)

    def join(self, space: str) -> None:
        def run(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                conn.execute(
                    f"INSERT INTO {schema.SCHEMA}.spaces (name) VALUES (%s) ON CONFLICT DO NOTHING",
                    (space,),
                )
                try:  # a member already (another machine of this role): nothing to check
                    conn.execute(
                        f"INSERT INTO {schema.SCHEMA}.members (space, role) "
                        "SELECT %s, current_user WHERE NOT EXISTS (SELECT 1 FROM "
                        f"{schema.SCHEMA}.members WHERE space = %s AND role = current_user)",
                        (space, space),
                    )
                except self._psycopg.errors.InsufficientPrivilege:
                    raise HubUnavailable(
                        f"space {space!r} belongs to others and this role was not "
                        "invited: a member runs invite first"
                    ) from None

        self._call(run)

    def invite(self, space: str, role: str) -> None:
        def run(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                try:
                    conn.execute(
                        f"INSERT INTO {schema.SCHEMA}.invites (space, role) VALUES (%s, %s) "
                        "ON CONFLICT DO NOTHING",
                        (space, role),
                    )
                except (
                    self._psycopg.errors.InsufficientPrivilege,
                    self._psycopg.errors.ForeignKeyViolation,
                ):
                    raise HubUnavailable(
                        f"only a member of space {space!r} may invite to it"
                    ) from None

        self._call(run)

    def spaces(self) -> list[str]:
        def run(conn: psycopg.Connection[Any]) -> list[str]:
            with conn.transaction():
                rows = conn.execute(
                    f"SELECT space FROM {schema.SCHEMA}.members "
                    "WHERE role = current_user ORDER BY space"
                ).fetchall()
            return [str(r[0]) for r in rows]

        return self._call(run)

    def push(self, changes: Sequence[Change]) -> None:
        if not changes:
            return
        columns = [[getattr(c, name) for c in changes] for name in FIELDS]
        # One statement for the batch (arrays unnested in their order, so seq follows
        # the outbox's order); a change_id already in the log is skipped, which makes a
        # push retried after a lost acknowledgement harmless.
        # Binary parameters (%b): a vector goes as its bytes, not as hex text to escape.
        arrays = ", ".join(f"%b::{_PG_TYPES.get(name, 'text')}[]" for name in FIELDS)
        query = (
            f"INSERT INTO {schema.SCHEMA}.log ({', '.join(FIELDS)}) "
            f"SELECT * FROM unnest({arrays}) ON CONFLICT (change_id) DO NOTHING"
        )

        def run(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                try:
                    conn.execute(query, columns)
                except self._psycopg.errors.InsufficientPrivilege:
                    spaces = sorted({c.space for c in changes})
                    raise HubUnavailable(
                        f"the hub refused the push: this role is not a member of all of {spaces}"
                    ) from None

        self._call(run)

    def pull(self, after: int, limit: int, space: str | None = None) -> list[Pulled | Rejected]:
        # One space's rows from a position (a catch-up) are a range of the index on
        # (space, seq), walked a page at a time. Planned otherwise, each page read all
        # of them: with no statistics yet (a large push just made), a bitmap scan of
        # every row of the space above the position and a sort (7-11 ms for 256 of
        # 3,000); analyzed, a walk of the whole log from the position filtering out
        # the other spaces (`space =` lets the primary key's order stand for (space,
        # seq)). So the space is named only as a range of (space, seq), whose order
        # no other index gives, and bitmap and sequential scans are off for this
        # transaction alone (any role may set them; a member may not ANALYZE the log).
        # The main pull (no space) is that range for each space of the role's, a page at
        # most each, merged by seq: walked as the log, row security filtering out the
        # spaces it is not in, it read every row of those after the cursor (a team's
        # other spaces, most of the log: 2,005 rows read for 5 of its own).
        if space is not None:
            query = _range("%s")
            params: tuple[object, ...] = (space, after, space, LAST_SEQ, limit)
        else:
            query = (
                f"SELECT l.* FROM {schema.SCHEMA}.members m "
                f"CROSS JOIN LATERAL ({_range('m.space')}) l "
                "WHERE m.role = current_user ORDER BY l.seq LIMIT %s"
            )
            params = (after, LAST_SEQ, limit, limit)

        def run(conn: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
            with conn.transaction():
                conn.execute(  # one round trip: SET LOCAL of both
                    "SELECT set_config('enable_bitmapscan', 'off', true), "
                    "set_config('enable_seqscan', 'off', true)"
                )
                # binary rows: bytea arrives as bytes, not hex
                return conn.execute(query, params, binary=True).fetchall()

        return [row_to_change(row) for row in self._call(run)]

    def head(self) -> int:
        def run(conn: psycopg.Connection[Any]) -> int:
            with conn.transaction():
                row = conn.execute(
                    f"SELECT seq FROM {schema.SCHEMA}.log ORDER BY seq DESC LIMIT 1"
                ).fetchone()
            return int(row[0]) if row else 0

        return self._call(run)

    def wait(self, timeout: float, wake: Wake | None = None) -> bool:
        """Wait for a NOTIFY, or for `wake` to be set (then False). True also right
        after (re)connecting the listener: changes announced while nobody listened would
        otherwise wait for the next poll. Any space's announcement wakes it (the payload
        names the space; pulling finds nothing new if it is not this role's). With the
        hub down it raises at once: the caller backs off."""
        if self._listen is not None and not self._listen.closed:
            try:
                if wake is not None:
                    return self._announced_or_woken(self._listen, timeout, wake)
                return self._announced(self._listen, timeout)
            except self._psycopg.Error:
                # The hub restarted or the connection broke: listen again on a new one
                # (below), and answer True, since what was announced meanwhile was lost.
                self._drop_listen()
        try:
            listen = self._connect(autocommit=True)
            try:
                listen.execute(f"LISTEN {schema.NOTIFY_CHANNEL}")
            except BaseException:
                listen.close()
                raise
        except self._psycopg.Error as e:
            raise self._unavailable(e) from None
        self._listen = listen
        return True

    def _announced(self, listen: psycopg.Connection[Any], timeout: float) -> bool:
        woke = any(True for _ in listen.notifies(timeout=timeout, stop_after=1))
        if woke:  # the rest of a burst is one wake-up, not several
            for _ in listen.notifies(timeout=0):
                pass
        return woke

    def _announced_or_woken(
        self, listen: psycopg.Connection[Any], timeout: float, wake: Wake
    ) -> bool:
        """One poll on the socket and the wake: psycopg's notifies() reads all that
        has arrived each time, so nothing announced sits unseen in libpq while polled."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            if listen.fileno() not in readable([listen, wake], left):
                return False  # woken, or the time is up
            if self._announced(listen, 0):
                return True
            # Something else on the socket: a server's message before it goes (the next
            # read finds the end, and raises), or nothing whole yet. Wait on.
        return False

    def close(self) -> None:
        for conn in (self._conn, self._listen):
            if conn is not None:
                conn.close()
        self._conn = self._listen = None

    # -- connections and errors ------------------------------------------------------

    def _connect(self, *, autocommit: bool) -> psycopg.Connection[Any]:
        given = self._psycopg.conninfo.conninfo_to_dict(self._url)
        defaults: dict[str, Any] = {"connect_timeout": self._connect_timeout, **KEEPALIVES}
        extra = {k: v for k, v in defaults.items() if k not in given}
        conn: psycopg.Connection[Any] = self._psycopg.connect(
            self._url, autocommit=autocommit, **extra
        )
        # Per session, not in the startup packet: poolers refuse unknown startup options.
        conn.execute(f"SET statement_timeout = {int(self._statement_timeout_ms)}")
        if not autocommit:
            conn.commit()
        return conn

    def _call(self, run: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`run` on the push/pull connection, in the caller's thread (one at a time:
        `wait` has a connection of its own). A connection made before the hub restarted
        fails on first use: every call here is idempotent (a push by change_id), so it
        runs once more on a new connection before the hub is declared unavailable."""
        reused = self._conn is not None and not self._conn.closed
        try:
            try:
                return run(self._connected())
            except (self._psycopg.OperationalError, self._psycopg.InterfaceError):
                if not self._lost() or not reused:
                    raise  # a statement timeout, say: the same again would wait again
                return run(self._connected())
        except self._psycopg.Error as e:
            self._lost()
            raise self._unavailable(e) from None
        except HubUnavailable as e:
            raise HubUnavailable(_scrub(e.message, self._password)) from None

    def _lost(self) -> bool:
        """Whether the push/pull connection broke (then dropped: the next call makes a
        new one). A statement cancelled by its timeout leaves it usable."""
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            self._drop_conn()
            return True
        return False

    def _connected(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = None
            self._conn = self._connect(autocommit=False)
        return self._conn

    def _unavailable(self, e: Exception) -> HubUnavailable:
        text = str(e).strip() or type(e).__name__
        if "no password supplied" in text:
            text += NO_PASSWORD_FOUND
        return HubUnavailable(f"hub {redacted(self._url)}: {_scrub(text, self._password)}")

    def _drop_conn(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _drop_listen(self) -> None:
        conn, self._listen = self._listen, None
        if conn is not None:
            conn.close()


if TYPE_CHECKING:
    _IS_A_HUB_LINK: type[HubLink] = PgLink  # mypy holds PgLink to the contract


_impl: list[str] = []  # psycopg.pq.__impl__, once a link has imported psycopg


def psycopg_impl() -> str | None:
    """Which build of psycopg the link runs (`psycopg.pq.__impl__`: "binary" or "c",
    compiled, or "python", which reads every value through ctypes, ~5x the CPU a row);
    None while no link has imported it. Not imported here: that costs ~0.2 s, which a
    `hub status` of a daemon without a hub should not pay; nor read off sys.modules,
    which holds psycopg half made while the worker's thread imports it."""
    return _impl[0] if _impl else None


def _import_psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise HubUnavailable(
            "the hub needs psycopg: install enyal[hub] (pip install 'enyal[hub]')"
        ) from None
    if not _impl:
        _impl.append(str(psycopg.pq.__impl__))
    return psycopg

"""The hub verbs: record the hub (`hub.init`), join a space (`hub.join`), a project's
rule (`hub.rule`), what the replica sees (`hub.status`), and a memory put into a space
(`remember`'s and `share`'s `space`)."""

from __future__ import annotations

import os

import apsw

from enyal_protocol import projects
from enyal_protocol import wire as p

from ...errors import InvalidValue, NotFound
from ...hub.link import psycopg_impl, url_has_password, without_password
from ...store import hub as rows
from ...store.writer import Tx
from ..core.engine import Engine
from ..rules import scopes
from .replica import replica_of

NO_PASSWORD = (
    "the hub URL must not carry a password (it would sit in this home's database and "
    "logs): put it in ~/.pgpass, PGPASSFILE or PGPASSWORD, where libpq finds it"
)


def check_url(url: str) -> str:
    """The URL as it may be recorded; InvalidValue for one with a password in it (read
    as libpq reads it: hub/link.py), which is never recorded."""
    url = url.strip()
    if "\x00" in url or not url:
        raise InvalidValue("give the hub's PostgreSQL URL, e.g. postgresql://me@host/enyal")
    if url_has_password(url):
        raise InvalidValue(f"{NO_PASSWORD}; the URL without it: {without_password(url)}")
    return url


def init(engine: Engine, params: p.HubInitParams) -> p.HubInitResult:
    url = check_url(params.url)
    replica = replica_of(engine)
    link = replica.connect(url)
    try:
        version = link.init_schema()
    finally:
        link.close()

    def job(tx: Tx) -> str:
        if rows.get(tx.conn, "url") != url:
            rows.put(tx.conn, "url", url)
            rows.put(tx.conn, "cursor", "0")  # another hub: its log is read from the start
            rows.forget_positions(tx.conn)
        return rows.device(tx.conn)

    device = engine.write(job)
    replica.restart()
    return p.HubInitResult(url=url, schema_version=version, device=device)


def _url(conn: apsw.Connection) -> str:
    url = rows.get(conn, "url")
    if url is None:
        raise InvalidValue("no hub for this home: run `enyal hub init URL` first")
    return url


def join(engine: Engine, params: p.HubJoinParams) -> p.HubJoinResult:
    replica = replica_of(engine)
    link = replica.connect(_url(engine.reader()))
    try:
        link.join(params.space)
    finally:
        link.close()

    def job(tx: Tx) -> bool:
        if params.space in rows.spaces(tx.conn):
            return False
        rows.join(tx.conn, params.space, engine.clock.now_iso())
        # The space's rows below the cursor were not ours to see: they are read, that
        # space's alone, from the start up to the cursor (the worker's catch-up).
        rows.put(tx.conn, rows.CATCHUP + params.space, "0")
        return True

    changed = engine.write(job)
    replica.start()
    replica.wake()
    return p.HubJoinResult(space=params.space, changed=changed)


def invite(engine: Engine, params: p.HubInviteParams) -> p.HubInviteResult:
    """Let another role (a teammate's) join a space this home is a member of."""
    _joined(engine.reader(), params.space)
    link = replica_of(engine).connect(_url(engine.reader()))
    try:
        link.invite(params.space, params.role)
    finally:
        link.close()
    return p.HubInviteResult(space=params.space, role=params.role)


def _joined(conn: apsw.Connection, space: str) -> None:
    if space not in rows.spaces(conn):
        raise InvalidValue(
            f"this home is not a member of space {space!r}: `enyal hub join {space}`"
        )


def rule(engine: Engine, params: p.HubRuleParams) -> p.HubRuleResult:
    if params.project is None and params.cwd is None:
        raise InvalidValue("give the project's folder or the client's cwd")
    folder = scopes.absolute(params.project or params.cwd or "", params.cwd)
    project = scopes.project_of(folder)
    # A rule covers everything stored under its key: one for a folder in no project (a
    # typo walks up to `/`) would send every path-keyed project's memories to the space.
    if not os.path.isdir(folder) or not projects.marked(project.root):
        raise InvalidValue(
            f"{folder} is in no project (no git repository or project file there or "
            "above): a rule is a project's; give a folder of one"
        )
    key = project.key

    def job(tx: Tx) -> None:
        _joined(tx.conn, params.space)
        rows.set_rule(tx.conn, key, params.space)

    engine.write(job)
    return p.HubRuleResult(project=key, space=params.space)


def unrule(engine: Engine, params: p.HubUnruleParams) -> p.HubUnruleResult:
    """Remove a project's rule: named as stored (a rule on `/` or on a folder in no
    project, which stores from before `rule` refused them may hold), else by a folder
    of its project. Memories already in the space stay there (a memory stays in its
    space); only new ones stop joining it."""
    if params.project is None and params.cwd is None:
        raise InvalidValue("give the project's folder or the client's cwd")
    named = params.project
    tried = [named] if named is not None and (scopes.is_place(named) or named == "/") else []
    if not tried:
        folder = scopes.absolute(named or params.cwd or "", params.cwd)
        tried = list(dict.fromkeys([folder, scopes.project_of(folder).key]))

    def job(tx: Tx) -> p.HubUnruleResult:
        for key in tried:
            space = rows.drop_rule(tx.conn, key)
            if space is not None:
                return p.HubUnruleResult(project=key, space=space)
        raise NotFound(
            f"no rule for {tried[-1]} (the rules: `enyal hub status`; give one as it shows it)"
        )

    return engine.write(job)


def check_space(engine: Engine, space: str | None) -> None:
    """Before the slow part of a write (embedding): the space must be joined."""
    if space is not None:
        _joined(engine.reader(), space)


def enrol(tx: Tx, memory_id: str, space: str) -> bool:
    """Put a memory into `space` on this transaction (its change is captured at the job's
    end); whether it was not in it. A memory stays in its space: InvalidValue for another."""
    _joined(tx.conn, space)
    member = rows.member(tx.conn, memory_id)
    if member is not None:
        if member.space != space:
            raise InvalidValue(
                f"memory {memory_id} is in space {member.space!r} already; a memory stays "
                "in its space (the others hold it)"
            )
        return False
    rows.enrol(tx.conn, memory_id, space)
    return True


def share(engine: Engine, params: p.ShareParams) -> p.ShareResult:
    """`share --space`: an existing memory into a space of the hub."""
    assert params.space is not None
    space = params.space

    def job(tx: Tx) -> tuple[str, bool]:
        row = engine.require(params.id, tx.conn)
        if row.is_deprecated:
            raise InvalidValue(f"entry {row.id} is forgotten: restore it before sharing it")
        changed = enrol(tx, row.id, space)
        rows.set_review(tx.conn, row.id, None)  # shared again: the person has looked
        engine.changes.note(tx, "updated", row)  # the capture sends its first version
        return row.id, changed

    entry_id, changed = engine.write(job)
    return p.ShareResult(id=entry_id, shared=True, changed=changed, file=None)


def annotate(engine: Engine, found: list[p.Entry]) -> None:
    """Each entry's space, where it is in one (`get`)."""
    spaces = rows.spaces_of(engine.reader(), [e.id for e in found])
    for e in found:
        if e.id in spaces:
            e.space = spaces[e.id]


def problems(engine: Engine, limit: int) -> list[p.SharedProblem]:
    """What review lists of the hub: memories edited concurrently on two devices."""
    return [
        p.SharedProblem(file=f"hub:{m.space}", reason=m.review or "", id=m.memory_id)
        for m in rows.to_review(engine.reader(), limit)
    ]


def status(engine: Engine, params: p.HubStatusParams) -> p.HubStatusResult:
    conn = engine.reader()
    replica = replica_of(engine)
    progress = replica.progress
    counts = rows.space_counts(conn)
    cursor = int(rows.get(conn, "cursor") or 0)
    head = progress.head
    pending = rows.backlog(conn)  # rows behind the cursor still to apply
    behind = max(0, pending[1] - pending[0]) if pending else 0
    return p.HubStatusResult(
        configured=rows.get(conn, "url") is not None,
        url=rows.get(conn, "url"),
        device=rows.get(conn, "device"),
        clock=rows.clock(conn),
        connected=progress.connected and replica.running,
        spaces=[p.HubSpace(space=s, memories=counts.get(s, 0)) for s in rows.spaces(conn)],
        rules=rows.rules(conn),
        cursor=cursor,
        head=head,
        lag=max(0, head - cursor) + behind if head is not None else None,
        outbox=rows.depth(conn),
        conflicts=rows.conflicts(conn),
        refused=progress.refused,
        last_error=progress.last_error or rows.get(conn, "last_error"),
        last_error_at=progress.last_error_at,
        last_push=progress.last_push or rows.get(conn, "last_push"),
        last_pull=progress.last_pull or rows.get(conn, "last_pull"),
        wakeups=progress.wakeups,
        psycopg=psycopg_impl(),
    )

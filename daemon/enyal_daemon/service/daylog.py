"""The daily log (seed 001): `log_append` adds a timestamped line to today's log of the
project, `log_show` reads a day back.

One memory per project and day, of type `log`, appended to: "Log YYYY-MM-DD" and then
a line "- HH:MM text" per append. Not one memory per line, because a day reads as a
whole (the brief and `enyal log --show` print it in one piece), a recall is not
flooded by one-line fragments, and the same line written on two days does not
collide with the rule that a scope holds one text once. Each append is an `updated`
version, so history keeps the day as it grew. The cost: meaning search sees the
day's first 256 tokens (words are indexed whole), and a day holds at most 64 KiB.

The day and the clock are the daemon's local time, which is the user's: the daemon
runs as the user, on their machine.
"""

from __future__ import annotations

from datetime import date, datetime

import apsw

from enyal_protocol import wire as p

from ..errors import InvalidValue
from ..hygiene.injection import suspicious
from ..store import entries, versions
from ..store.filters import EntryFilter
from ..store.rows import EntryRow
from ..store.writer import Tx
from . import memories, redaction, scopes
from .clock import now_iso
from .engine import Engine
from .limits import check_content

DATE_KEY = "log_date"  # the metadata key naming a log's day (indexed: m008)
ATTEMPTS = 8  # appends racing on one day's entry retry this often before giving up
HEADER = "Log {day}"


def today() -> str:
    return datetime.now().astimezone().date().isoformat()


def day_rows(conn: apsw.Connection, project: str, day: str) -> list[EntryRow]:
    """The log entries of a project's day, oldest first."""
    f = EntryFilter(
        scope_level="project",
        scope_path=project,
        match_path=True,
        content_type="log",
        metadata=((DATE_KEY, day),),
    )
    return sorted(entries.filtered(conn, f), key=lambda r: r.rid)


def lines_of(rows: list[EntryRow]) -> list[str]:
    return [line for row in rows for line in row.content.splitlines() if line.startswith("- ")]


def append(engine: Engine, params: p.LogAppendParams) -> p.LogAppendResult:
    text = " ".join(params.text.split())  # one line, whatever was sent
    if not text:
        raise InvalidValue("a log line must not be blank")
    clean = redaction.scrub(engine.redactor, content=text)
    project = scopes.resolve_scope_path("project", None, params.cwd)
    assert project is not None  # a project scope always resolves to a path
    now = datetime.now().astimezone()
    day = now.date().isoformat()
    line = f"- {now:%H:%M} {clean.content}"
    for _ in range(ATTEMPTS):
        rows = day_rows(engine.reader(), project, day)
        if not rows:
            made = memories.remember(
                engine,
                p.RememberParams(
                    content=f"{HEADER.format(day=day)}\n{line}",
                    scope="project",
                    scope_path=project,
                    metadata={DATE_KEY: day},
                    written_by=params.written_by,
                ),
                content_type="log",
                # Another first append may have made the day's entry since it was read:
                # then this line goes into that one, on the next round.
                existing=lambda conn: next(iter(day_rows(conn, project, day)), None),
            )
            if made.action != "existing":
                return p.LogAppendResult(id=made.id, date=day, line=line, redacted=clean.found)
            continue
        entry_id = _extend(engine, rows[-1], line)
        if entry_id is not None:
            return p.LogAppendResult(id=entry_id, date=day, line=line, redacted=clean.found)
    raise InvalidValue("today's log kept changing under this append; try again")


def _extend(engine: Engine, row: EntryRow, line: str) -> str | None:
    """Append to the day's entry as read; None when another append changed it since (the
    caller reads it again: the line must be added to what is there now)."""
    content = f"{row.content}\n{line}"
    check_content(content)
    digest = entries.content_hash(content)
    emb = engine.embed_memory(content)  # outside the writer: the slow part needs no lock
    flags = suspicious(line)

    def job(tx: Tx) -> str | None:
        current = entries.get(tx.conn, row.id)
        if current is None or current.content_hash != row.content_hash:
            return None
        fields: dict[str, object] = {
            "content": content,
            "content_hash": digest,
            "updated_at": now_iso(),
        }
        if flags:
            fields["quarantined"] = 1
            fields["quarantine_reason"] = ", ".join(flags)
        entries.update_fields(tx.conn, row.rid, fields)
        entries.replace_vector(tx.conn, row.rid, *emb.blobs())
        versions.record(tx.conn, row.id, "updated", str(fields["updated_at"]))
        engine.index_after_commit(
            tx, row.rid, emb, row.scope, row.content_type, active=not row.is_deprecated
        )
        return row.id

    return engine.write(job)


def show(engine: Engine, params: p.LogShowParams) -> p.LogShowResult:
    day = params.date or today()
    try:
        date.fromisoformat(day)
    except ValueError:
        raise InvalidValue(f"date is not a date: {day!r} (YYYY-MM-DD)") from None
    project = scopes.resolve_scope_path("project", None, params.cwd)
    assert project is not None
    rows = [r for r in day_rows(engine.reader(), project, day) if not r.is_deprecated]
    return p.LogShowResult(
        date=day, project=project, lines=lines_of(rows), ids=[r.id for r in rows]
    )

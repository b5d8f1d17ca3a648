"""The daily log (seed 001): `log_append` adds a timestamped line to today's log of the
project, `log_show` reads a day back.

A day is a few memories of type `log`, its parts, appended to: "Log YYYY-MM-DD" (later
parts "Log YYYY-MM-DD (part N)") and then a line "- HH:MM text" per append. Lines
rather than one memory each, because a day reads as a whole (the brief and `enyal log
--show` print it in one piece), a recall is not flooded by one-line fragments, and the
same line written on two days does not collide with the rule that a scope holds one
text once. Parts rather than one memory a day, because each append rewrites, embeds and
versions the part it goes into: a part closes once it passes PART_BYTES, so an append
costs the same at line 1,000 as at line 1, and a day has no size limit (it had 64 KiB,
~400 lines, and slowed 7x on the way). Meaning search sees each part's first 256 tokens.

A line that reads as an instruction to an agent is held back alone: it goes into a part
of its own, quarantined, and the day's other lines still show; `log_show` counts it.

The day and the clock are the daemon's local time, which is the user's: the daemon
runs as the user, on their machine.
"""

from __future__ import annotations

from datetime import date

import apsw

from enyal_protocol import wire as p

from ...errors import InvalidValue
from ...hygiene.injection import suspicious
from ...store import entries, versions
from ...store.filters import EntryFilter
from ...store.rows import EntryRow
from ...store.writer import Tx
from ..core.engine import Engine
from ..memory import memories
from ..rules import redaction, scopes
from ..rules.limits import check_content

DATE_KEY = "log_date"  # the metadata key naming a log's day (indexed: m008)
ATTEMPTS = 8  # appends racing on one day's entry retry this often before giving up
HEADER = "Log {day}"
PART_BYTES = 4096  # a part takes lines until its text passes this, then the next begins


def day_rows(
    conn: apsw.Connection, project: str, day: str, *, quarantined: bool = False
) -> list[EntryRow]:
    """The log entries (parts) of a project's day, oldest first; with `quarantined`, the
    parts holding a line held back too."""
    f = EntryFilter(
        scope_level="project",
        scope_path=project,
        match_path=True,
        content_type="log",
        metadata=((DATE_KEY, day),),
        include_quarantined=quarantined,
    )
    return sorted(entries.filtered(conn, f), key=lambda r: r.rid)


def lines_of(rows: list[EntryRow]) -> list[str]:
    return [line for row in rows for line in row.content.splitlines() if line.startswith("- ")]


def _header(day: str, part: int) -> str:
    head = HEADER.format(day=day)
    return head if part == 1 else f"{head} (part {part})"


def _open_part(rows: list[EntryRow]) -> EntryRow | None:
    """The part the next line goes into: the day's last, unless it is full, held back or
    forgotten (then a new part begins)."""
    last = rows[-1] if rows else None
    if last is None or last.quarantined or last.is_deprecated:
        return None
    return last if len(last.content.encode()) < PART_BYTES else None


def append(engine: Engine, params: p.LogAppendParams) -> p.LogAppendResult:
    text = " ".join(params.text.split())  # one line, whatever was sent
    if not text:
        raise InvalidValue("a log line must not be blank")
    clean = redaction.scrub(engine.redactor, content=text)
    project = scopes.resolve_scope_path("project", None, params.cwd)
    assert project is not None  # a project scope always resolves to a path
    now = engine.clock.local()
    day = now.date().isoformat()
    line = f"- {now:%H:%M} {clean.content}"
    held = bool(suspicious(line))  # then a part of its own, quarantined by remember
    for _ in range(ATTEMPTS):
        rows = day_rows(engine.reader(), project, day, quarantined=True)
        part = None if held else _open_part(rows)
        if part is not None:
            entry_id = _extend(engine, part, line)
            if entry_id is not None:
                return p.LogAppendResult(id=entry_id, date=day, line=line, redacted=clean.found)
            continue
        seen = rows[-1].rid if rows else 0

        def opened_since(conn: apsw.Connection, seen: int = seen) -> EntryRow | None:
            # Another append may have begun a part since the day was read: then this
            # line goes into that one, on the next round.
            part = _open_part(day_rows(conn, project, day, quarantined=True))
            return part if part is not None and part.rid > seen else None

        made = memories.remember(
            engine,
            p.RememberParams(
                content=f"{_header(day, len(rows) + 1)}\n{line}",
                scope="project",
                scope_path=project,
                metadata={DATE_KEY: day},
                written_by=params.written_by,
            ),
            content_type="log",
            existing=None if held else opened_since,
        )
        if made.action != "existing":
            return p.LogAppendResult(id=made.id, date=day, line=line, redacted=clean.found)
    raise InvalidValue("today's log kept changing under this append; try again")


def _extend(engine: Engine, row: EntryRow, line: str) -> str | None:
    """Append to the part as read; None when another append changed it since (the
    caller reads the day again: the line must be added to what is there now)."""
    content = f"{row.content}\n{line}"
    check_content(content)
    emb = engine.embed_memory(content)  # outside the writer: the slow part needs no lock

    def job(tx: Tx) -> str | None:
        current = entries.get(tx.conn, row.id)
        if current is None or current.content_hash != row.content_hash:
            return None
        if current.quarantined:  # held back since it was read: the line goes elsewhere
            return None
        fields: dict[str, object] = {
            "content": content,
            "updated_at": engine.clock.now_iso(),
        }
        entries.update_fields(tx.conn, row.rid, fields)
        entries.replace_vector(tx.conn, row.rid, *emb.blobs())
        versions.record(tx.conn, row.id, "updated", str(fields["updated_at"]))
        engine.index_after_commit(
            tx, row.rid, emb, row.scope, row.content_type, active=not row.is_deprecated
        )
        return row.id

    return engine.write(job)


def show(engine: Engine, params: p.LogShowParams) -> p.LogShowResult:
    day = params.date or engine.clock.local().date().isoformat()
    try:
        date.fromisoformat(day)
    except ValueError:
        raise InvalidValue(f"date is not a date: {day!r} (YYYY-MM-DD)") from None
    project = scopes.resolve_scope_path("project", None, params.cwd)
    assert project is not None
    rows = day_rows(engine.reader(), project, day, quarantined=True)
    shown = [r for r in rows if not r.is_deprecated and not r.quarantined]
    held = [r for r in rows if not r.is_deprecated and r.quarantined]
    return p.LogShowResult(
        date=day,
        project=project,
        lines=lines_of(shown),
        ids=[r.id for r in shown],
        quarantined=len(lines_of(held)),
    )

"""The engine owns its clock (service/rules/clock.py): every verb's "now" is the engine's, so a
test moves time instead of waiting for it (issue 26.8). Here the engine runs in this
process on a SetClock; tests/test_clock_daemon.py moves a real daemon's clock."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.service.core.engine import Engine
from enyal_daemon.service.rules.clock import SetClock
from enyal_daemon.service.verbs import bind
from enyal_protocol import wire as p

DAEMON = Path(__file__).resolve().parent.parent / "daemon" / "enyal_daemon"
CLOCK = DAEMON / "service" / "rules" / "clock.py"
# What reads the calendar: time.monotonic (intervals, not dates) is not among them.
CALENDAR = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "time_ns"),
    ("time", "gmtime"),
    ("time", "localtime"),
}
START = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)


def calendar_reads(path: Path) -> list[str]:
    text = path.read_text()
    if not any(f".{attr}(" in text for _, attr in CALENDAR):
        return []  # nothing to parse for: most modules (parsing them all takes a second)
    found = []
    for node in ast.walk(ast.parse(text, str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            # datetime.now() and datetime.datetime.now() alike
            and (ast.unparse(node.func.value).rsplit(".", 1)[-1], node.func.attr) in CALENDAR
        ):
            found.append(f"{path.relative_to(DAEMON)}:{node.lineno} {ast.unparse(node.func)}()")
    return found


def test_only_the_clock_reads_the_calendar() -> None:
    """A verb asking the system for the date would escape a test's clock (and a moved
    clock would then disagree with it); time.monotonic, for intervals, may be read."""
    offenders = [
        hit
        for path in sorted(DAEMON.rglob("*.py"))
        if path != CLOCK
        for hit in calendar_reads(path)
    ]
    assert offenders == []


Verbs = Callable[[str, Any], Any]


@pytest.fixture
def clocked(home: Path, embedder: Any) -> Iterator[tuple[Verbs, SetClock]]:
    """An engine on a clock set to START, and its verbs as the daemon binds them (each
    sweeping what has expired first)."""
    clock = SetClock(START)
    engine = Engine(home / "enyal.db", embedder, clock=clock)
    verbs = bind(engine)
    try:
        yield (lambda name, params: verbs[name](params)), clock
    finally:
        engine.close()


def test_writes_are_stamped_with_the_engines_time(clocked: tuple[Verbs, SetClock]) -> None:
    call, clock = clocked
    made = call("remember", p.RememberParams(content="The CI runs nightly.", scope="global"))
    assert made.entry.created_at == made.entry.updated_at == "2031-03-04T12:00:00.000000Z"
    clock.advance(timedelta(days=2))
    confirmed = call("confirm", p.ConfirmParams(id=made.id))
    assert confirmed.confirmed_at == "2031-03-06T12:00:00.000000Z"


def test_an_expiry_passes_when_the_clock_moves(clocked: tuple[Verbs, SetClock]) -> None:
    call, clock = clocked
    call("remember", p.RememberParams(content="Deploys happen on Tuesdays.", scope="global"))
    soon = call(
        "remember",
        p.RememberParams(content="The deploy freeze lasts until noon.", scope="global", ttl="1h"),
    )
    assert soon.entry.expires_at == "2031-03-04T13:00:00.000000Z"
    clock.advance(timedelta(minutes=59))
    assert call("stats", p.StatsParams()).total == 2
    clock.advance(timedelta(minutes=1))
    assert call("stats", p.StatsParams()).total == 1
    assert call("list", p.ListParams()).entries[0].content == "Deploys happen on Tuesdays."


def test_memories_decay_and_go_stale_as_the_clock_moves(
    clocked: tuple[Verbs, SetClock],
) -> None:
    call, clock = clocked
    made = call(
        "remember", p.RememberParams(content="The cache TTL is 10 minutes.", scope="global")
    )

    def hit() -> p.Hit:
        found = call("recall", p.RecallParams(query="cache TTL", min_confidence=0)).results
        (h,) = [h for h in found if h.id == made.id]
        return h

    fresh = hit()
    assert call("health", p.HealthParams(stale_days=90)).stale_count == 0
    clock.advance(timedelta(days=365))
    old = hit()
    assert old.effective_confidence < fresh.effective_confidence
    # Recency compares memories: nothing written since, this is still the newest one...
    assert old.recency == pytest.approx(1.0) and fresh.recency == pytest.approx(1.0)
    assert call("health", p.HealthParams(stale_days=90)).issues.stale_entries == [made.id]
    # ...and once the store is written again, its year counts as before.
    call("remember", p.RememberParams(content="Lunch is ordered on Fridays.", scope="global"))
    assert hit().recency == pytest.approx(0.5 ** (365 / 30))


def test_as_of_reads_the_past_the_clock_wrote(clocked: tuple[Verbs, SetClock]) -> None:
    call, clock = clocked
    made = call("remember", p.RememberParams(content="We deploy with Fabric.", scope="global"))
    clock.advance(timedelta(days=3))
    call("update", p.UpdateParams(id=made.id, content="We deploy with Ansible."))

    def believed(as_of: str) -> str:
        q = p.RecallParams(query="how do we deploy", min_confidence=0, as_of=as_of)
        return str(call("recall", q).results[0].content)

    assert believed("2031-03-05") == "We deploy with Fabric."
    assert believed("2031-03-07") == "We deploy with Ansible."


def test_the_day_log_takes_its_day_from_the_clock(
    clocked: tuple[Verbs, SetClock], project: Path
) -> None:
    call, clock = clocked
    day = START.astimezone().date().isoformat()
    first = call("log_append", p.LogAppendParams(text="Started the migration.", cwd=str(project)))
    assert (first.date, first.line) == (day, f"- {START.astimezone():%H:%M} Started the migration.")
    clock.advance(timedelta(days=1))
    assert call("log_show", p.LogShowParams(cwd=str(project))).date != day
    assert call("log_show", p.LogShowParams(cwd=str(project), date=day)).lines == [first.line]


def test_a_harness_daemons_clock_runs_ahead_by_what_the_test_moved(tmp_path: Path) -> None:
    """What clocked=True daemons run on (scripts/harnesslib): the system's time, plus
    every advance so far; the daemon side reads the file the test side writes."""
    from harnesslib.clocked_daemon import FileClock
    from harnesslib.clockfile import MovedClock

    clock, moved = FileClock(tmp_path / "clock"), MovedClock(tmp_path / "clock")
    before = datetime.now(UTC)
    assert before <= clock.now() <= datetime.now(UTC)  # not moved yet: no file, no offset
    moved.advance(3600)
    moved.advance(60)
    ahead = clock.now() - datetime.now(UTC)
    assert timedelta(seconds=3659) < ahead <= timedelta(seconds=3660)

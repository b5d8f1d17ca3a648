"""Timestamps: ISO 8601 in UTC with a Z, so that text order is time order in SQL; and the
engine's clock, the one source of "now" for the verbs.

Every verb asks `engine.clock` for the time instead of the system, so that a test can move
time (an expiry passed, a memory decayed, a date for as-of) without waiting for it: the
engine gets a SetClock in a test's process, the daemon a SystemClock. A daemon started
by the test harness (scripts/harnesslib) gets a clock of its own through run_daemon's
`clock` argument; `python -m enyal_daemon` has no way to set one, so production time
is always the system's.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from datetime import UTC, datetime, timedelta

from ...errors import InvalidValue


def to_iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


class Clock(ABC):
    @abstractmethod
    def now(self) -> datetime:
        """The time, aware, in UTC."""

    def now_iso(self) -> str:
        return to_iso(self.now())

    def local(self) -> datetime:
        """The time in the daemon's zone, which is the user's (the day log's day)."""
        return self.now().astimezone()


class SystemClock(Clock):
    def now(self) -> datetime:
        return datetime.now(UTC)


SYSTEM = SystemClock()


class SetClock(Clock):
    """A clock that stands still where it is set and moves only when told: for tests."""

    def __init__(self, at: datetime | None = None) -> None:
        self._at = (at or datetime.now(UTC)).astimezone(UTC)
        self._lock = threading.Lock()  # verbs read it from request threads

    def now(self) -> datetime:
        with self._lock:
            return self._at

    def set(self, at: datetime) -> None:
        with self._lock:
            self._at = at.astimezone(UTC)

    def advance(self, by: timedelta) -> None:
        with self._lock:
            self._at += by


def file_time_ns() -> int:
    """The system's time now, as the file system stamps files: for comparing with a
    file's mtime or ctime, which no test clock moves (a SetClock's "now" would make every
    folder look years old or not yet made)."""
    return time.time_ns()


def parse_iso(text: str, field: str = "timestamp") -> datetime:
    """A timestamp from a user (import, as-of): naive means UTC; anything unparsable is refused."""
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidValue(f"{field} is not an ISO 8601 date or time: {text!r}") from None
    dt = dt if dt.tzinfo else dt.replace(tzinfo=UTC)
    try:  # what the verbs do with it (a date's end, a day either side) must stay in range
        dt.astimezone(UTC) + EDGE
        dt.astimezone(UTC) - EDGE
    except OverflowError:
        raise InvalidValue(
            f"{field} is out of range: {text!r} (years 0001-9999, less a day at either end)"
        ) from None
    return dt


EDGE = timedelta(days=2)  # the margin kept from the calendar's ends (year 1, year 9999)


def normalize_iso(text: str, field: str) -> str:
    return to_iso(parse_iso(text, field))


def days_between(earlier: str, now: datetime) -> float:
    return days_since(parse_iso(earlier), now)


def days_since(earlier: datetime, now: datetime) -> float:
    """days_between of a time already parsed (the brief keeps its rows' parsed)."""
    return max(0.0, (now - earlier).total_seconds() / 86400.0)

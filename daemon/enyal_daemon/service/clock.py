"""Timestamps: ISO 8601 in UTC with a Z, so that text order is time order in SQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ..errors import InvalidValue


def to_iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def now_iso() -> str:
    return to_iso(datetime.now(UTC))


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
    return max(0.0, (now - parse_iso(earlier)).total_seconds() / 86400.0)

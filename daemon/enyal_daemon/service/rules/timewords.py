"""Relative dates in a query ("four weeks ago", "last weekend", "yesterday") read as a
window of days before the asking time: a feature of the learned ranker (fusion.py) that
says whether a memory was said when the question says it was.

Only what is relative to the asking moment is read: a memory's age is counted from it
already (recall's asked_at), so "two weeks ago" is a window of ages, whatever the date.
Named months and dates ("in March", "on May 3rd") and events ("before I moved") are not
read. Standard library only.
"""

from __future__ import annotations

import re

Window = tuple[float, float]  # (fewest, most) days before the asking time

_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 4,
}
_DAYS = {"day": 1.0, "week": 7.0, "month": 30.4, "year": 365.0}
# How far either side of "N units ago" still counts: people round ("a month ago" of
# something said five weeks ago), more the bigger the unit.
_SLACK = {"day": 1.0, "week": 4.0, "month": 12.0, "year": 90.0}
_COUNT = "|".join(sorted(map(re.escape, _NUMBERS), key=len, reverse=True))
_AGO = re.compile(rf"\b(\d+|{_COUNT})\s+(day|week|month|year)s?\s+ago\b", re.I)
_PAST = re.compile(rf"\b(?:past|last)\s+(\d+|{_COUNT})\s+(day|week|month|year)s?\b", re.I)
_WEEKDAY = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_FIXED: list[tuple[re.Pattern[str], Window]] = [
    (re.compile(r"\byesterday\b", re.I), (0.0, 2.0)),
    (re.compile(r"\btoday\b|\bthis morning\b|\btonight\b", re.I), (0.0, 1.0)),
    (re.compile(r"\blast weekend\b|\bthis weekend\b", re.I), (0.0, 9.0)),
    (re.compile(rf"\blast (?:{_WEEKDAY})\b", re.I), (0.0, 9.0)),
    (re.compile(r"\blast week\b|\bthis week\b", re.I), (0.0, 14.0)),
    (re.compile(r"\blast month\b|\bthis month\b", re.I), (0.0, 62.0)),
    (re.compile(r"\blast year\b|\bthis year\b", re.I), (0.0, 731.0)),
]


def _count(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBERS[text.lower()]


def window(query: str) -> Window | None:
    """The days before the asking time the query points at, or None when it names none."""
    m = _AGO.search(query)
    if m:
        unit = m.group(2).lower()
        centre = _count(m.group(1)) * _DAYS[unit]
        return max(0.0, centre - _SLACK[unit]), centre + _SLACK[unit]
    m = _PAST.search(query)
    if m:
        return 0.0, _count(m.group(1)) * _DAYS[m.group(2).lower()] + 1.0
    for pattern, days in _FIXED:
        if pattern.search(query):
            return days
    return None

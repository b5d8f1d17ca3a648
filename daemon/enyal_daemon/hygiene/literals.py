"""The literals a regular expression cannot match without: a cheap gate before it runs.

`needed(pattern)` reads the parsed expression and returns strings of which every match
holds at least one (or None when it cannot tell). A text holding none of them cannot
match, so the expression need not run: a few `in` tests (tens of nanoseconds each)
instead of a search (microseconds). This decides nothing the expression would not:
the strings are a necessary condition read off the expression itself, never a guess.

Sound by construction: a sequence needs what any one of its parts needs (the most
selective is kept); an alternation needs one of what each branch needs; a repeat needs
its body's only if it runs at least once; anything else (a class of many characters, a
negated one, `.`, a lookaround) needs nothing. A case-insensitive expression gets no
gate: Python folds case beyond str.lower() (the long s matches "s", the Kelvin sign
"k"), so a lowered text could miss what the expression finds.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from typing import Any

# The expression parser behind `re` (typeshed describes it only as the deprecated
# sre_parse, whose import warns).
_parser: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")

Needed = frozenset[str] | None
_SMALL_CLASS = 16  # a class of at most this many characters is as good as that many literals


def needed(pattern: re.Pattern[str]) -> Needed:
    """Strings of which every match of `pattern` contains one; None: no such set known."""
    if pattern.flags & re.IGNORECASE:
        return None
    return _sequence(_parser.parse(pattern.pattern, pattern.flags))


def gate(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """`needed` as a tuple for `passes` (empty: no gate)."""
    found = needed(pattern)
    return tuple(sorted(found)) if found else ()


def folded(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """For a case-insensitive `pattern`, a gate to test on an ASCII text lowered (empty: no
    gate): `needed` read as written, each string lowered. On ASCII, re folds case as
    str.lower() does (the long s and the Kelvin sign, which it folds beyond, are not
    ASCII), so a match in an ASCII text holds one of the strings lowered, as long as
    every string is ASCII. Not for a text that is not ASCII."""
    found = _sequence(_parser.parse(pattern.pattern, pattern.flags & ~re.IGNORECASE))
    if not found or not all(s.isascii() for s in found):
        return ()
    return tuple(sorted({s.lower() for s in found}))


def passes(literals: tuple[str, ...], text: str) -> bool:
    """Could `text` match the pattern these literals were read from?"""
    return not literals or any(map(text.__contains__, literals))


def _sequence(items: Any) -> Needed:
    options: list[frozenset[str]] = []
    run = ""
    for op, av in items:
        if op is _c.LITERAL:
            run += chr(av)
            continue
        if run:
            options.append(frozenset([run]))
            run = ""
        found = _item(op, av)
        if found:
            options.append(found)
    if run:
        options.append(frozenset([run]))
    if not options:
        return None
    # The most selective: its shortest string the longest, then the fewest strings.
    return max(options, key=lambda o: (min(map(len, o)), -len(o)))


def _item(op: Any, av: Any) -> Needed:
    if op is _c.SUBPATTERN:
        _group, add_flags, _del_flags, body = av
        return None if add_flags & re.IGNORECASE else _sequence(body)
    if op is _c.BRANCH:
        branches = [_sequence(b) for b in av[1]]
        if any(not b for b in branches):
            return None
        return frozenset().union(*branches)  # type: ignore[arg-type]
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        low, _high, body = av
        return _sequence(body) if low >= 1 else None
    if op is _c.IN:
        return _class(av)
    return None  # AT (zero width), ANY, NOT_LITERAL, CATEGORY, lookarounds, group refs


def _class(members: Any) -> Needed:
    chars: set[str] = set()
    for op, av in members:
        if op is _c.LITERAL:
            chars.add(chr(av))
        elif op is _c.RANGE and av[1] - av[0] < _SMALL_CLASS:
            chars.update(chr(i) for i in range(av[0], av[1] + 1))
        else:  # NEGATE, CATEGORY, a wide range
            return None
    return frozenset(chars) if 0 < len(chars) <= _SMALL_CLASS else None


class Finder:
    """Which of many literals a text holds, exactly those an `in` test of each finds, at
    a fraction of their cost (575 literals on a memory): the text's three-character
    pieces that begin a literal are kept (the pieces as tuples of characters, zipped and
    intersected in C: slicing each out cost twice as much), and only those few literals
    are confirmed with `in`; the literals shorter than three are tested each, the ASCII
    ones only on an ASCII text. Shared by threads: immutable."""

    def __init__(self, literals: Iterable[str]) -> None:
        every = frozenset(literals)
        self.short = tuple(sorted(lit for lit in every if len(lit) < 3))
        self.short_ascii = tuple(lit for lit in self.short if lit.isascii())
        by_gram: dict[tuple[str, ...], tuple[str, ...]] = {}
        for lit in sorted(every):
            if len(lit) >= 3:
                gram = tuple(lit[:3])
                by_gram[gram] = (*by_gram.get(gram, ()), lit)
        self.by_gram = by_gram
        self.grams = frozenset(by_gram)

    def found(self, text: str, lowered: str) -> set[str]:
        """The literals `lowered` holds (`text` is what it was made from: only whether it
        is ASCII is read, as an ASCII text's lowered form holds no other character)."""
        short = self.short_ascii if text.isascii() else self.short
        held = {lit for lit in short if lit in lowered}
        pieces = zip(lowered, lowered[1:], lowered[2:], strict=False)  # (shorter ones end)
        for gram in self.grams.intersection(pieces):
            held.update(lit for lit in self.by_gram[gram] if lit in lowered)
        return held

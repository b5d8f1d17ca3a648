"""Contradiction and supersession hints for a memory being written (seed 000 §11).

Nothing here links or changes anything: the writer of the memory is told what
looks contradictory or replaceable, and decides (link conflicts_with, supersede).
Only neighbours similar in meaning (CONFLICT_SIMILARITY) are compared, so both
statements are already about the same subject; what is left to tell is whether they
disagree or say the same thing in other words. Paraphrases are the common case, so
the rules are built to not flag them (issue 9), cheaply: no model call, a few tens
of microseconds a pair.

Each statement is reduced to its content words, so wording alone is no difference:
- lower-cased, simple suffixes stripped ("deploys"/"deployed"/"deploying"), words
  that code joins split ("singleQuote", "proxy_read_timeout", "force-push");
- spelled-out numbers as digits ("four" = "4"), units after a number spelled one way
  ("60s" = "60 seconds"), and a few common equivalents in code talk
  (repo/repository/git, Postgres/PostgreSQL, CI/continuous integration, PR/pull
  request);
- dropped: stopwords, light verbs that only link a subject to its value ("uses",
  "is built with", "is managed with", "runs on"), modals, examples ("like 1.2.0"),
  and the words that date or narrate a change rather than state a fact ("now", "last
  week", "was upgraded to", "switched"): "The service was upgraded to Node 20 last
  week" states what "The service uses Node 20" states. A capitalised word inside a
  sentence is a name and never dropped ("written in Go");
- dropped too: a clause that only names where a practice comes from ("…, as gofmt
  does", "…, like Prettier's default", "…, following ktlint"); a file name counts as
  its words ("poetry.lock" = Poetry's lock file).

Then three signals, the first that fires gives the reason:
- negation: a clause that denies something ("never", "don't", "avoid", "not X",
  "disabled", "turned off"…) contradicts the other statement when the other affirms
  more than half of that clause's content words. Negated on both sides is agreement
  ("Never commit secrets to the repo" / "Do not commit secrets to git"), and "Keep
  secrets in Vault, not in env files" does not contradict "Keep secrets in Vault"
  (the denial is about env files).
- a different choice: apart from what both affirm, each says something of its own
  (at most MAX_OWN_WORDS words) in one place ("Use Python 3.11" / "This project
  targets Python 3.12"; "Frontend tests use Jest" / "…use Vitest"). Not a choice:
  own words in two places, which mean another subject with another value ("4 spaces
  in Python" / "2 spaces in YAML"); own words on one side only, which are added
  detail; one word in two forms ("bundled"/"bundler"); a number on one side against
  words on the other ("targets Java 17" / "is built with Gradle"); and differing
  words beside a number both state, which is a value they agree on ("expire after 30
  minutes" / "are valid for 30 minutes"; a differing unit still counts); a verb on each
  side ("errors are reported to Sentry" / "we send our errors to Sentry"), which is
  two ways to say one thing, or two things said of one subject; and lowercase words
  that open both statements and qualify the same next word ("Database migrations use
  Alembic" / "Schema migrations use Alembic"), which name a subject, not a value. Denied
  clauses take no part: prohibitions of different things coexist ("Never commit
  secrets" / "Never commit generated files").
- a reversed preference: the same words on both sides of "over/than/instead/rather"
  swapped ("prefer A over B" / "prefer B over A").

What this cannot tell apart is a swapped predicate from a swapped value when both are
plain words ("Tickets are tracked in Jira" / "The team uses Jira for tickets" reads as
a choice of "tracked" against "team"); scripts/eval_conflicts measures how often, on
hand-labelled pairs in scripts/data/conflict_pairs.jsonl.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection

import apsw

from enyal_protocol import wire as p

from ...index.keywords import STOPWORDS
from ...store import graph
from ...store.rows import EntryRow

CONFLICT_SIMILARITY = 0.6
SUPERSEDE_SIMILARITY = 0.8
MAX_OWN_WORDS = 3
CANDIDATES = 10
# The embedding that made two texts neighbours saw their first 256 tokens (~1,000
# characters); reading on would only cost time in the writer (content can be 64 KiB).
READ_CHARS = 2000

NEGATIONS = frozenset(
    """not no never don't dont doesn't doesnt isn't isnt aren't arent shouldn't shouldnt
    mustn't mustnt can't cant cannot won't wont avoid stop stopped without disable
    disabled deprecated forbid forbidden instead off""".split()
)
# Words that relate a subject to its value without being the value: "X uses Y", "X is
# built with Y", "X is managed in Y" say the same. Which one a writer picks is style.
LIGHT_VERBS = frozenset(
    """use using used uses run runs running ran be build built building builds write
    written writes writing wrote manage managed manages managing do does done doing
    set sets setting keep keeps kept keeping go goes going went follow follows followed
    target targets targeted require requires required make makes made get gets got
    have has had configure configured configures define defined defines handle
    handled handles apply applied applies put puts live lives happen happens work
    works need needs needed want wants call called store stored stores via through""".split()
)
MODALS = frozenset("must should shall may might can could would will ought".split())
# Words that date a statement or tell that it changed; the fact stated is the same.
DETAIL = frozenset(
    """now currently current today yesterday recently recent lately last ago since
    earlier previously week weeks month months year years day days upgraded upgrade
    bumped bump switched switch moved migrated changed updated january february march
    april may june july august september october november december""".split()
)
NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
# Spellings of one thing in a coding agent's notes. Phrases are read before words.
EQUIVALENT_PHRASES = {
    "continuous integration": "ci",
    "pull request": "pr",
    "pull requests": "pr",
    "merge request": "pr",
    "merge requests": "pr",
    "semantic versioning": "semver",
    "semantic version": "semver",
    "semantic versions": "semver",
}
EQUIVALENT_WORDS = {
    "repository": "repo",
    "repositories": "repo",
    "repos": "repo",
    "git": "repo",
    "codebase": "repo",
    "postgresql": "postgres",
    "pg": "postgres",
    "prs": "pr",
    "mr": "pr",
    "mrs": "pr",
    "chars": "character",
    "char": "character",
    "k8s": "kubernetes",
    "db": "database",
    "config": "configuration",
    "env": "environment",
    "prod": "production",
    "dev": "development",
}
# Units as written after a number ("60s", "5 mins").
UNITS = {
    "s": "second",
    "sec": "second",
    "secs": "second",
    "min": "minute",
    "mins": "minute",
    "h": "hour",
    "hr": "hour",
    "hrs": "hour",
    "ms": "millisecond",
    "msec": "millisecond",
}
COMPARATIVES = frozenset("over than instead rather".split())

# A clause that names where a practice comes from ("…, as gofmt does", "…, like
# Prettier's default", "…, following ktlint") backs the statement up; it states no
# value of its own, so it takes no part in the comparison.
ASIDE_STARTS = frozenset("as like following per matching".split())
_TOKEN = re.compile(r"[\w.'+#/-]+")
_CLAUSE = re.compile(r"[,;:()!?]|\.(?:\s|$)|\s[-–—]\s")
_CLAUSE_START = re.compile(r"^\s*[A-Z](?=[a-z]*\b)")
_JOINS = re.compile(r"[-/_]+")
_DIGIT = re.compile(r"\d")
_NUMBER_UNIT = re.compile(r"^(\d+(?:\.\d+)?)([a-z]+)$")
_NUMBER = re.compile(r"v?\d[\d.]*(?:[-+][\w.]*)?$")
_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z][a-z])")  # singleQuote, not gRPC or iOS
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s", "ly")
FILLERS = frozenset("like e.g eg i.e ie example such etc".split())
SAME_ROOT = 5  # letters two own words must share to count as one word in two forms


@functools.lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    if len(word) <= 3 or _DIGIT.search(word):
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "formatt(ing)" -> "format"
    return word.removesuffix("e") if len(word) > 4 else word


def _raw_words(clause: str) -> list[str]:
    """Words as written, split where code joins them: "singleQuote", "proxy_read_timeout",
    "force-push", "db/seeds"; "60s" as "60 s". A version ("3.11-slim") stays whole."""
    # A capital that starts a sentence says nothing; one inside it marks a name.
    clause = _CLAUSE_START.sub(lambda m: m.group(0).lower(), clause)
    words: list[str] = []
    for token in _TOKEN.findall(clause):
        token = token.removesuffix("'s").strip(".'-/")
        if not token:
            continue
        if _DIGIT.search(token):
            unit = _NUMBER_UNIT.match(token.lower())
            words.extend(unit.groups() if unit else [token])
            continue
        # A file name is its words ("poetry.lock" is Poetry's lock file); a dotted
        # version has digits and was kept whole above.
        for part in _JOINS.split(token.replace(".", "/")):
            if part[:1].islower():
                words.extend(_CAMEL.split(part))
            elif part:
                words.append(part)
    return words


# The statement's verb: a participle after a form of "be" ("errors are *reported*") or
# a word after a pronoun ("we *send*"). Two statements whose own words are each a verb
# say two things about one subject, or one thing in two words, not two values of one
# slot; "the branch is *main*" has no participle and stays a value.
BE = frozenset("is are was were be been being".split())
PRONOUNS = frozenset("we they i you".split())
_PARTICIPLE = re.compile(
    r"[a-z]{3,}(?:ed|en)$|(?:reset|sent|shown|held|taken|given|seen|known|hidden|shut|split)$"
)


class _Word:
    __slots__ = ("key", "opens", "pos", "surface", "verb")

    def __init__(
        self, key: str, surface: str, verb: bool = False, opens: bool = False, pos: int = -1
    ) -> None:
        self.key = key
        self.surface = surface
        self.verb = verb
        self.opens = opens  # the statement's first word: the head of its subject
        self.pos = pos  # where it was in its clause's words


def _content(words: list[str], opening: bool = False) -> list[_Word]:
    """The words that carry the statement, normalised (see the module's docstring).
    `opening`: these are the statement's first words, so the first one is marked."""
    out: list[_Word] = []
    first = next((j for j, w in enumerate(words) if w.lower() not in STOPWORDS), -1)
    i = 0
    while i < len(words):
        surface, lower = words[i], words[i].lower()
        phrase = f"{lower} {words[i + 1].lower()}" if i + 1 < len(words) else ""
        before = words[i - 1].lower() if i > 0 else ""
        verb = before in PRONOUNS or (before in BE and _PARTICIPLE.match(lower) is not None)
        opens = opening and i == first
        i += 1
        if phrase in EQUIVALENT_PHRASES:
            out.append(_Word(EQUIVALENT_PHRASES[phrase], f"{surface} {words[i]}"))
            i += 1
            continue
        name = surface != lower  # "Go" the language is not "go" the verb
        if lower in STOPWORDS or lower in NEGATIONS or lower in FILLERS:
            continue
        # "2 weeks" is a value, "last week" a date.
        after_number = bool(out) and _is_number(out[-1].key)
        detail = DETAIL if not after_number else frozenset()
        if lower in detail or (not name and (lower in MODALS or lower in LIGHT_VERBS)):
            continue
        unit = UNITS.get(lower) if after_number else None
        key = _stem(unit or NUMBER_WORDS.get(lower) or EQUIVALENT_WORDS.get(lower) or lower)
        if key in detail or (not name and key in LIGHT_VERBS):
            continue
        out.append(_Word(key, surface, verb and not name, opens, i - 1))
    return out


class _Statement:
    """A text read once: content words of its affirmed clauses, and of each denied one."""

    __slots__ = ("affirmed", "denied", "words")

    def __init__(self, text: str) -> None:
        self.affirmed: list[_Word] = []
        self.denied: list[set[str]] = []
        self.words: list[str] = []
        for i, clause in enumerate(_CLAUSE.split(text)):
            words = _raw_words(clause)
            if i > 0 and words and words[0].lower() in ASIDE_STARTS:
                continue
            content = _content(words, opening=not self.words)
            self.words.extend(words)
            # Whole tokens: "off" denies, "off-peak" and "sign-off" do not.
            if NEGATIONS.intersection(t.lower() for t in _TOKEN.findall(clause)):
                self.denied.append({w.key for w in content})
            else:
                self.affirmed.extend(content)


# remember compares one new text with up to CANDIDATES neighbours; nothing mutates these.
@functools.lru_cache(maxsize=64)
def _read(text: str) -> _Statement:
    return _Statement(text)


def _denies(denier: _Statement, other: _Statement) -> bool:
    """Whether a denied clause of `denier` is mostly what `other` affirms."""
    affirmed = {w.key for w in other.affirmed}
    return any(denied and 2 * len(denied & affirmed) > len(denied) for denied in denier.denied)


def _is_number(key: str) -> bool:
    """A count or a version ("20", "3.11-slim", "v1.2.0"); "D3" and "argon2" are names."""
    return _NUMBER.match(key) is not None


def _same_root(a: _Word, b: _Word) -> bool:
    """One word in two forms: "bundled"/"bundler", "sent"/"send". Names are what they are
    ("Vite" is not "Vitest"), and so are numbers."""
    if a.surface != a.surface.lower() or b.surface != b.surface.lower():
        return False
    x, y = a.key, b.key
    if _is_number(x) or _is_number(y):
        return False
    n = 0
    for i, j in zip(x, y, strict=False):
        if i != j:
            break
        n += 1
    shorter = min(len(x), len(y))
    return (n >= SAME_ROOT and n >= shorter - 2) or (n >= 3 and n >= shorter - 1)


def _own(words: list[_Word], other: list[_Word]) -> list[list[_Word]]:
    """The runs of `words` that `other` does not hold, in order. A shared word said again
    (the second "secrets" of "secrets in AWS Secrets Manager") neither ends nor starts one."""
    left: dict[str, int] = {}
    for w in other:
        left[w.key] = left.get(w.key, 0) + 1
    runs: list[list[_Word]] = []
    in_run = False
    for w in words:
        if left.get(w.key, 0) > 0:
            left[w.key] -= 1
            in_run = False
        elif w.key in left:
            continue
        elif in_run:
            runs[-1].append(w)
        else:
            runs.append([w])
            in_run = True
    return runs


def _choice(a: list[_Word], b: list[_Word]) -> tuple[list[str], list[str]] | None:
    """Each side's own words if they differ in one slot of the same kind, else None."""
    if not {w.key for w in a} & {w.key for w in b}:
        return None
    runs_a, runs_b = _own(a, b), _own(b, a)
    # One word in two forms ("bundled" / "bundler") is no difference.
    for run_a in runs_a:
        for run_b in runs_b:
            for x in list(run_a):
                y = next((y for y in run_b if _same_root(x, y)), None)
                if y is not None:
                    run_a.remove(x)
                    run_b.remove(y)
    runs_a, runs_b = [r for r in runs_a if r], [r for r in runs_b if r]
    if len(runs_a) != 1 or len(runs_b) != 1:
        return None
    own_a, own_b = runs_a[0], runs_b[0]
    if any(w.verb for w in own_a) and any(w.verb for w in own_b):
        return None  # other verbs, not other values (see BEFORE_VERB)
    if _modifiers_of_one_head(a, own_a, b, own_b):
        return None
    # The same number on both sides is a value they agree on ("expire after 30 minutes" /
    # "are valid for 30 minutes"), unless what differs is its unit ("5 minutes" / "5 hours").
    shared_numbers = {w.key for w in a if _is_number(w.key)} & {w.key for w in b}
    if shared_numbers and not (
        _follows(a, own_a, shared_numbers) and _follows(b, own_b, shared_numbers)
    ):
        return None
    if len({w.key for w in own_a}) > MAX_OWN_WORDS or len({w.key for w in own_b}) > MAX_OWN_WORDS:
        return None
    numbers_a = [_is_number(w.key) for w in own_a]
    numbers_b = [_is_number(w.key) for w in own_b]
    if (all(numbers_a) and not any(numbers_b)) or (all(numbers_b) and not any(numbers_a)):
        return None
    return _surfaces(own_a), _surfaces(own_b)


def _modifiers_of_one_head(
    a: list[_Word], own_a: list[_Word], b: list[_Word], own_b: list[_Word]
) -> bool:
    """Whether the own words open both statements and qualify the same next word:
    "*Database* migrations use Alembic" / "*Schema* migrations use Alembic" name the one
    subject twice, and "*Unit* tests use pytest" / "*Integration* tests use pytest" two
    subjects with one value; neither is a choice between values. Names are left out:
    "*Jest* runs the frontend tests" / "*Vitest* runs…" is a choice."""
    if not (own_a[0].opens and own_b[0].opens):
        return False  # "Use *camel*Case…" / "Use *snake*_case…": a value after a verb
    if any(w.surface != w.surface.lower() or _is_number(w.key) for w in (*own_a, *own_b)):
        return False
    # The shared word must follow at once ("database *migrations*"), not after a verb
    # dropped as light ("Redis is used as the session cache").
    for words, own in ((a, own_a), (b, own_b)):
        n = len(own)
        if n >= len(words) or words[n].pos != own[-1].pos + 1:
            return False
    return a[len(own_a)].key == b[len(own_b)].key


def _follows(words: list[_Word], run: list[_Word], numbers: set[str]) -> bool:
    """Whether `run` comes right after one of `numbers` in `words`."""
    start = next(i for i, w in enumerate(words) if w is run[0])
    return start > 0 and words[start - 1].key in numbers


def _surfaces(words: list[_Word]) -> list[str]:
    return list(dict.fromkeys(w.surface for w in words))


def _sides(words: list[str]) -> tuple[set[str], set[str]] | None:
    """The content words before and after a comparative ("A over B"), if there is one."""
    for i, word in enumerate(words):
        if word.lower() in COMPARATIVES:
            return {w.key for w in _content(words[:i])}, {w.key for w in _content(words[i + 1 :])}
    return None


def _reversed(a: _Statement, b: _Statement) -> bool:
    sides_a, sides_b = _sides(a.words), _sides(b.words)
    if sides_a is None or sides_b is None:
        return False
    (before_a, after_a), (before_b, after_b) = sides_a, sides_b
    moved_back = before_a - before_b
    moved_front = before_b - before_a
    return bool(moved_back and moved_front) and (
        moved_back == after_b - after_a and moved_front == after_a - after_b
    )


def contradiction(new: str, old: str) -> str | None:
    """Why `new` seems to contradict `old`, or None."""
    a, b = _read(new[:READ_CHARS]), _read(old[:READ_CHARS])
    if _denies(a, b) or _denies(b, a):
        return "negation: one says not/never, the other does not"
    choice = _choice(a.affirmed, b.affirmed)
    if choice is not None:
        return f"different choice: {', '.join(choice[0])} vs {', '.join(choice[1])}"
    if _reversed(a, b):
        return "reversed preference: the same options in the other order"
    return None


def superseded(conn: apsw.Connection, similar: list[tuple[EntryRow, float]]) -> set[str]:
    """The ids among `similar` that a live entry already supersedes."""
    return set(graph.superseded_by(conn, [row.id for row, _ in similar]))


def review(
    content: str,
    content_type: str,
    scope: tuple[str, str | None],
    similar: list[tuple[EntryRow, float]],
    detect: bool,
    suggest: bool,
    settled: Collection[str] = (),
) -> tuple[list[p.Related], list[p.Related]]:
    """(conflicts, supersedes candidates) among `similar` (entry rows with similarity),
    leaving out the `settled` ids: entries already superseded are history, not a claim
    the new memory could contradict or replace."""
    conflicts: list[p.Related] = []
    candidates: list[p.Related] = []
    for row, sim in similar:
        if row.content == content or row.id in settled:
            continue
        why = contradiction(content, row.content) if sim >= CONFLICT_SIMILARITY else None
        if detect and why:
            conflicts.append(p.Related(id=row.id, content=row.content, similarity=sim, reason=why))
        same_kind = row.content_type == content_type and row.scope == scope
        if suggest and same_kind and (sim >= SUPERSEDE_SIMILARITY or why):
            reason = why or "same subject, same scope: the new statement may replace it"
            candidates.append(
                p.Related(id=row.id, content=row.content, similarity=sim, reason=reason)
            )
    return conflicts, candidates

"""Secrets never stored: find credentials in text and replace each by a typed placeholder.

    >>> redact("db is postgres://app:s3cretPw@db:5432/x").text
    'db is postgres://app:[REDACTED:url-password]@db:5432/x'

Only the secret part goes; the key name, the URL around a password, the header name
stay, so the memory keeps its meaning ("the staging DB is reached as app@db:5432").
The result says what was found as kind -> count, never the values, so it can be
returned to the caller and logged.

Why our own patterns and not `detect-secrets` (or gitleaks/trufflehog):
- detect-secrets is built to scan files for a baseline: its plugins report a line
  and a hashed secret, not the span of the secret in free text, so a redactor on
  top of it would re-implement the matching anyway. Its keyword and entropy plugins
  are tuned for code files and flag prose and identifiers a memory is full of.
- It covers fewer of the token formats coding agents meet (no Anthropic, Hugging
  Face, Docker Hub, Vault hvs., PyPI, DigitalOcean v1 … at the time of writing),
  and it brings a dependency tree (PyYAML, requests) into the daemon for ~30 regular
  expressions. gitleaks and trufflehog are Go programs, not importable.
- Redaction runs on every write, inside the daemon's request path; the rules here
  are compiled once, skipped unless a keyword of theirs occurs, and cost ~0.2 ms
  on a typical 500-character memory (scripts/eval_secrets prints the figures).
The shapes were learnt from the providers' token documentation and those projects'
public rule sets (see secret_rules.py); tests/data/secrets/ holds a corpus of fake
secrets and of benign look-alikes that pins both rates.

Decisions a reader may look for:
- AWS's documented example credentials (AKIAIOSFODNN7EXAMPLE and the
  wJalrXUtnFEMI/…EXAMPLEKEY secret) and anything else spelled with EXAMPLE are left
  alone: they are published, grant nothing, and appear in notes copied from docs.
- Placeholders (`${DB_PASSWORD}`, `$TOKEN`, `<your-token>`, `YOUR_API_KEY`, `xxxx`,
  `********`, `changeme`, `{{ secrets.X }}`, `os.environ["X"]`) and code
  (`token=None`, `password: str`, `password=self.password`) are not secrets.
- A placeholder already in the text (`[REDACTED:kind]`) is never matched again, so
  redacting twice changes nothing.
- Custom rules (config) run before the built-in ones; allow-listed values are kept
  verbatim wherever a rule finds them.
- A line holding `pragma: allowlist secret` (detect-secrets' convention, as written
  after fixtures in tests) is kept as it is, and so is the line after one holding
  `pragma: allowlist nextline secret`: the writer has said these are not secrets.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from enyal_protocol.config import SECRET_KIND

from .literals import Finder
from .secret_rules import RULES, Rule, assignment_kind, custom_rule, value_is_secret

__all__ = [
    "BUILT_IN",
    "RULES",
    "Redaction",
    "Redactor",
    "Rule",
    "custom_rule",
    "merge_found",
    "redact",
    "redact_metadata",
    "redact_tags",
]

PLACEHOLDER = re.compile(r"\[REDACTED:" + SECRET_KIND.pattern + r"\]")
_PRAGMA = re.compile(r"pragma:\s*allowlist\s+(?P<next>nextline\s+)?secret", re.IGNORECASE)


def allowed_lines(text: str) -> list[tuple[int, int]]:
    """The spans of the lines a `pragma: allowlist secret` comment exempts."""
    spans = []
    for m in _PRAGMA.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        if m.group("next"):
            if end == len(text):
                continue
            start = end + 1
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
        spans.append((start, end))
    return spans


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True, slots=True)
class Redaction:
    """Text with its secrets replaced, and what was replaced (kind -> count)."""

    text: str
    found: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.found)


def merge_found(*counts: Mapping[str, int]) -> dict[str, int]:
    """Add up kind -> count maps (content, tags, metadata of one write)."""
    total: dict[str, int] = {}
    for c in counts:
        for kind, n in c.items():
            total[kind] = total.get(kind, 0) + n
    return dict(sorted(total.items()))


TAGS_KEPT = 10_000  # tags whose redaction a Redactor keeps
TAG_KEPT_CHARS = 200  # longer "tags" are not kept: not worth the memory


class Redactor:
    """The rules in force: built-in ones plus configured extras and an allow-list.

    Build one at config load and reuse it; it holds only compiled, immutable state
    and is safe to share between threads."""

    def __init__(self, extra_rules: Iterable[Rule] = (), allow: Collection[str] = ()) -> None:
        self.rules: tuple[Rule, ...] = (*extra_rules, *RULES)
        self.allow = frozenset(allow)
        # Each keyword looked for once per text, not once per rule naming it: with ~140
        # rules the per-rule checks cost more than the rules that run (half the time of a
        # note that names no credential). The keywords found name the rules to run (with
        # those that have none), in the rules' order; the others are not even visited.
        by_keyword: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            for k in rule.keywords:
                by_keyword.setdefault(k, []).append(i)
        self._keywords = tuple(sorted(by_keyword))
        # Found at once (literals.Finder): 158 `in` tests were ~14 us of a memory's ~21
        self._finder = Finder(self._keywords)
        self._by_keyword = {k: tuple(rules) for k, rules in by_keyword.items()}
        self._always = frozenset(i for i, rule in enumerate(self.rules) if not rule.keywords)
        # Tags redacted so far (redact is a function of the text alone): the same few tags
        # come with many memories, an import's or a hub sync's (~0.015 ms a tag each time).
        # A dict's get and set are atomic under the GIL: threads may share it.
        self._tags: dict[str, Redaction] = {}

    def redact(self, text: str) -> Redaction:
        if not text:
            return Redaction(text)
        lowered = text.lower()
        # Placeholders already present are taken first, so nothing matches inside or
        # across them and a second pass is a no-op.
        taken: list[tuple[int, int]] = [m.span() for m in PLACEHOLDER.finditer(text)]
        if "allowlist" in lowered:
            taken.extend(allowed_lines(text))
        spans: list[tuple[int, int, str]] = []
        chosen = set(self._always)
        for k in self._finder.found(text, lowered):
            chosen.update(self._by_keyword[k])
        for i in sorted(chosen):
            for start, end, kind in self.rules[i].find(text):
                # Earlier rules win: a span that overlaps one already taken is skipped.
                if any(start < e and s < end for s, e in taken):
                    continue
                if text[start:end] in self.allow:
                    continue
                taken.append((start, end))
                spans.append((start, end, kind))
        if not spans:
            return Redaction(text)
        spans.sort()
        out: list[str] = []
        found: dict[str, int] = {}
        pos = 0
        for start, end, kind in spans:
            out.append(text[pos:start])
            out.append(placeholder(kind))
            found[kind] = found.get(kind, 0) + 1
            pos = end
        out.append(text[pos:])
        return Redaction("".join(out), dict(sorted(found.items())))

    def tags(self, tags: Iterable[str]) -> tuple[list[str], dict[str, int]]:
        """Each tag redacted; the tags' order and number are kept."""
        results = [self._tag(t) for t in tags]
        return [r.text for r in results], merge_found(*(r.found for r in results))

    def _tag(self, tag: str) -> Redaction:
        got = self._tags.get(tag)
        if got is None:
            got = self.redact(tag)
            if len(self._tags) >= TAGS_KEPT:  # a bound on the memory: start again
                self._tags.clear()
            if len(tag) <= TAG_KEPT_CHARS:
                self._tags[tag] = got
        return got

    def metadata(self, value: Any) -> tuple[Any, dict[str, int]]:
        """A JSON-like value (dict/list/str/number/bool/None) with secrets redacted in
        keys and string values, recursively. A string under a secret-ish key
        (`{"password": "hunter2"}`) is replaced whole when it is not a placeholder:
        it would look like nothing on its own."""
        found: dict[str, int] = {}

        def walk(v: Any, key: str | None) -> Any:
            if isinstance(v, str):
                if key is not None and _secretish_key(key) and value_is_secret(key, v, quoted=True):
                    kind = assignment_kind(key)
                    found[kind] = found.get(kind, 0) + 1
                    return placeholder(kind)
                r = self.redact(v)
                for kind, n in r.found.items():
                    found[kind] = found.get(kind, 0) + n
                return r.text
            if isinstance(v, Mapping):
                out: dict[Any, Any] = {}
                for k, item in v.items():
                    new_key = walk(k, None) if isinstance(k, str) else k
                    out[new_key] = walk(item, k if isinstance(k, str) else None)
                return out
            if isinstance(v, list | tuple):
                return [walk(item, key) for item in v]
            return v

        result = walk(value, None)
        return result, dict(sorted(found.items()))


_SECRETISH_KEY = re.compile(
    r"(?i)(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"secret[_-]?key|private[_-]?key)$"
)


def _secretish_key(key: str) -> bool:
    return bool(_SECRETISH_KEY.search(key.strip()))


# The built-in rules alone: what every write goes through unless config.toml says more.
BUILT_IN = Redactor()


def redact(text: str, extra_rules: Iterable[Rule] = (), allow: Collection[str] = ()) -> Redaction:
    """`text` with each secret replaced by `[REDACTED:<kind>]`, and the kinds found.

    `extra_rules` (from `custom_rule`) run before the built-in rules; values in `allow`
    are never replaced. Passing either builds a `Redactor` per call: on a hot path,
    build one `Redactor` and call its `redact`."""
    if not extra_rules and not allow:
        return BUILT_IN.redact(text)
    return Redactor(extra_rules, allow).redact(text)


def redact_tags(
    tags: Iterable[str], extra_rules: Iterable[Rule] = (), allow: Collection[str] = ()
) -> tuple[list[str], dict[str, int]]:
    r = BUILT_IN if not extra_rules and not allow else Redactor(extra_rules, allow)
    return r.tags(tags)


def redact_metadata(
    value: Any, extra_rules: Iterable[Rule] = (), allow: Collection[str] = ()
) -> tuple[Any, dict[str, int]]:
    r = BUILT_IN if not extra_rules and not allow else Redactor(extra_rules, allow)
    return r.metadata(value)

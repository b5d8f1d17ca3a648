"""Secrets out of every write: what a verb is about to store, redacted first.

Each write verb (remember, update, import, link) passes what it was sent through
`scrub` before it checks, embeds, stores or logs anything, so the database, its text
index, the vectors (computed from the redacted text), the history and the analytics
log only ever see placeholders. Recall queries are redacted before they are logged.

The rules in force are the engine's `secrets`: the built-in ones plus config.toml's
`[secrets]` patterns and allow-list. Writes go through its `redactor`, which is None
when the user turned redaction off (never the default; `enyal doctor` warns about it);
`scan` uses the rules either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from enyal_protocol.config import Config

from ...hygiene.secrets import Redactor, custom_rule, merge_found


def rules_from(cfg: Config) -> Redactor:
    """The built-in rules with config.toml's patterns first and its allow-list."""
    rules = [custom_rule(x.kind, x.pattern, x.keywords) for x in cfg.secret_patterns]
    return Redactor(rules, cfg.secrets_allow)


@dataclass(frozen=True)
class Scrubbed:
    """The fields as they may be stored; None where the caller gave none."""

    content: str | None = None
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    source_ref: str | None = None
    found: dict[str, int] = field(default_factory=dict)


def scrub(
    redactor: Redactor | None,
    *,
    content: str | None = None,
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
    source_ref: str | None = None,
) -> Scrubbed:
    if redactor is None:
        return Scrubbed(content, tags, metadata, source_ref)
    counts: list[dict[str, int]] = []
    if content is not None:
        r = redactor.redact(content)
        content = r.text
        counts.append(r.found)
    if tags is not None:
        tags, found = redactor.tags(tags)
        counts.append(found)
    if metadata is not None:
        metadata, found = redactor.metadata(metadata)
        counts.append(found)
    if source_ref is not None:
        r = redactor.redact(source_ref)
        source_ref = r.text
        counts.append(r.found)
    return Scrubbed(content, tags, metadata, source_ref, merge_found(*counts))


def text(redactor: Redactor | None, value: str) -> str:
    """One string as it may be kept (a query in the analytics log)."""
    return value if redactor is None else redactor.redact(value).text

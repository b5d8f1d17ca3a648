"""`list`: entries by filter and order, a page at a time (seeds 002 and 003's listing).

Pages are cut by a keyset cursor — the last entry's sort key and rid — rather than
an offset: a page costs the same deep into a large store, and entries written
between two pages neither repeat nor vanish from the ones still to come.
"""

from __future__ import annotations

import base64
from typing import Any

import msgspec

from enyal_protocol import wire as p

from ...errors import InvalidValue
from ...store import entries
from ...store.filters import EntryFilter
from ..core.engine import Engine
from ..files import sources
from ..rules import scopes
from ..rules.clock import normalize_iso

_Cursor = tuple[str | int, int]  # (sort key, rid)


def _encode_cursor(key: Any, rid: int) -> str:
    return base64.urlsafe_b64encode(msgspec.json.encode([key, rid])).decode()


def _decode_cursor(text: str) -> _Cursor:
    try:
        key, rid = msgspec.json.decode(base64.urlsafe_b64decode(text.encode()))
    except (ValueError, TypeError, msgspec.DecodeError):
        raise InvalidValue("cursor is not one this daemon handed out (pass `next` as is)") from None
    if not isinstance(key, str | int) or isinstance(key, bool) or not isinstance(rid, int):
        raise InvalidValue("cursor is not one this daemon handed out (pass `next` as is)")
    return key, rid


def _bound(value: str | None, field: str) -> str | None:
    return normalize_iso(value, field) if value is not None else None


def list_entries(engine: Engine, params: p.ListParams) -> p.ListResult:
    path, match_path = scopes.filter_path(params.scope, params.scope_path, params.cwd)
    f = EntryFilter(
        scope_level=params.scope,
        scope_path=path,
        match_path=match_path,
        content_type=params.content_type,
        tags=tuple(params.tags),
        min_importance=params.min_importance,
        metadata=tuple(params.where.items()),
        created_after=_bound(params.created_after, "created_after"),
        created_before=_bound(params.created_before, "created_before"),
        updated_after=_bound(params.updated_after, "updated_after"),
        updated_before=_bound(params.updated_before, "updated_before"),
        include_deprecated=params.include_deprecated,
        include_quarantined=params.include_quarantined,
    )
    after = _decode_cursor(params.cursor) if params.cursor is not None else None
    # One row more than asked says whether another page exists.
    page = entries.listing(
        engine.reader(), f, params.sort, params.order == "desc", after, params.limit + 1
    )
    more = len(page) > params.limit
    page = page[: params.limit]
    nxt = _encode_cursor(page[-1][0], page[-1][1].rid) if more else None
    found = [row.entry() for _, row in page]
    sources.annotate(engine, found)
    # Said, so that leaving them out is never silent (0 when they are included).
    hidden = 0 if f.include_quarantined else entries.quarantined_matching(engine.reader(), f)
    return p.ListResult(entries=found, next=nxt, quarantined=hidden)

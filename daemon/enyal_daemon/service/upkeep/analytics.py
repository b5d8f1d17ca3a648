"""Usage analytics: which entries were recalled, updated, linked or weighed for impact."""

from __future__ import annotations

from datetime import timedelta

from enyal_protocol import wire as p

from ...store import analytics as queries
from ..core.engine import Engine
from ..rules.clock import to_iso


def analytics(engine: Engine, params: p.AnalyticsParams) -> p.AnalyticsResult:
    engine.flush_bookkeeping()  # so that what was just done is counted
    since = to_iso(engine.clock.now() - timedelta(days=params.days))
    conn = engine.reader()
    events = queries.events(conn, since, params.entry_id, params.event_type, params.limit)
    by_type, by_entry = queries.counts(conn, since, params.entry_id, params.event_type)
    return p.AnalyticsResult(
        events=events,
        summary=p.AnalyticsSummary(
            total_events=sum(by_type.values()), by_type=by_type, by_entry=by_entry
        ),
    )

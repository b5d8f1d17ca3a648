"""The daemon's methods: each wire method and the verb function that answers it.

A verb is a function (engine, params) -> result; the server binds the engine once.
`status` and `shutdown` are the server's own and are added there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from enyal_protocol import wire as p

from .core import identity
from .core.engine import Engine
from .files import indexing, sharing
from .hub import membership
from .memory import consolidation, graph, listing, memories, recall, validity
from .rules import scopes
from .session import brief, daylog, sessions, tasks
from .upkeep import analytics, backup, health, scan, stats, transfer

Verb = Callable[[Engine, Any], Any]

SWEEP_THEMSELVES = frozenset(name for name, method in p.METHODS.items() if method.sweeps_expiry)
# Read the repository's `.enyal/` themselves, and say what the read found.
READ_SHARED_THEMSELVES = frozenset({"share_sync"})

# What a verb starts before the work every verb does first (the cwd's project, the expiry
# sweep), to run on another thread meanwhile: a recall's query embedding (issue 30).
EARLY: dict[str, Verb] = {
    "recall": recall.embed_early,
    "recall_by_scope": recall.embed_early,
}

VERBS: dict[str, Verb] = {
    "remember": memories.remember,
    "recall": recall.recall,
    "recall_by_scope": recall.recall_by_scope,
    "recall_batch": recall.recall_batch,
    "list": listing.list_entries,
    "get": memories.get,
    "update": memories.update,
    "forget": memories.forget,
    "restore": memories.restore,
    "confirm": memories.confirm,
    "release": memories.release,
    "consolidate": consolidation.consolidate,
    "stats": stats.stats,
    "link": graph.link,
    "unlink": graph.unlink,
    "edges": graph.edges,
    "traverse": graph.traverse,
    "impact": graph.impact,
    "history": validity.history,
    "health": health.health,
    "review": health.review,
    "analytics": analytics.analytics,
    "import": transfer.import_lines,
    "export": transfer.export_page,
    "backup": backup.backup,
    "scan": scan.scan,
    "task_add": tasks.add,
    "task_list": tasks.list_tasks,
    "task_update": tasks.update,
    "log_append": daylog.append,
    "log_show": daylog.show,
    "brief": brief.brief,
    "index": indexing.index,
    "session_seen": sessions.seen,
    "share": lambda e, params: (
        membership.share(e, params) if params.space is not None else sharing.share(e, params)
    ),
    "unshare": sharing.unshare,
    "share_sync": sharing.share_sync,
    "hub.init": membership.init,
    "hub.join": membership.join,
    "hub.invite": membership.invite,
    "hub.rule": membership.rule,
    "hub.unrule": membership.unrule,
    "hub.status": membership.status,
}


def bind(engine: Engine) -> dict[str, Callable[[Any], Any]]:
    """Every verb with the engine bound. Each first deletes what has expired, if anything
    has: that is what makes an expired entry vanish for every reader at once. And each
    sent from a folder first finds that folder's project where it is now, should its
    key have changed (service/core/identity.py), and reads its `.enyal/` if the store
    never has (service/files/sharing.py notice). Before all of it, a verb in EARLY starts
    what can run on another thread meanwhile."""

    def run(verb: Verb, sweep: bool, notice: bool, early: Verb | None, params: Any) -> Any:
        if early is not None:
            early(engine, params)
        with scopes.one_look():  # the cwd's project, found here, serves the verb too
            identity.follow(engine, getattr(params, "cwd", None))
            if notice:
                sharing.notice_cwd(engine, getattr(params, "cwd", None))  # a fresh clone's
            if sweep:
                engine.sweep_expired()
            return verb(engine, params)

    return {
        name: functools.partial(
            run,
            verb,
            name not in SWEEP_THEMSELVES,
            name not in READ_SHARED_THEMSELVES,
            EARLY.get(name),
        )
        for name, verb in VERBS.items()
    }

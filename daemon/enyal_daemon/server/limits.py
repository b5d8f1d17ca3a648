"""How many connections the daemon can bear: the configured cap, lowered to what the
open-file limit leaves once the database's own descriptors are set aside.

Each connection is one descriptor. SQLite needs a few per connection of its own (the
file and its WAL; the -shm once per process) for the writer, the checkpointer and one
reader per request thread, and opens them lazily: a thread's first request. When
connections had taken every descriptor, that open failed and writes answered -32009
"unable to open database file" (issue 25). So RESERVE descriptors are never given to
connections, and the soft limit is raised toward the hard one first where needed.
"""

from __future__ import annotations

import logging
import resource

log = logging.getLogger("enyal.daemon")

# Descriptors never given to connections: SQLite's files (writer, checkpointer, a reader
# per request and keyword thread: ~3 each for 2 x (cores + 2) threads on 8 cores = 60),
# the model, the log, the pid and database locks, the listening socket, the event loop's
# own, and headroom for a short burst of connections accepted only to be refused.
RESERVE = 128


def connection_cap(configured: int) -> int:
    """The number of connections to serve at once (at least 1)."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return configured
    want = configured + RESERVE
    if soft != resource.RLIM_INFINITY and soft < want:
        raised = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (OSError, ValueError):
            pass
    if soft == resource.RLIM_INFINITY:
        return configured
    room = max(1, soft - RESERVE)
    if room < configured:
        log.warning(
            "the open-file limit (%d) leaves room for %d connections beside the database's "
            "files, not daemon.max_connections = %d: serving %d at most (raise `ulimit -n`)",
            soft,
            room,
            configured,
            room,
        )
    return min(configured, room)

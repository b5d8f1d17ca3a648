"""How many connections the daemon can bear: the configured cap, lowered to what the
open-file limit leaves once the database's own descriptors are set aside.

Each connection is one descriptor. SQLite needs a few per connection of its own (the
file and its WAL; the -shm once per process) for the writer, the checkpointer and one
reader per request thread, and opens them lazily: a thread's first request. When
connections had taken every descriptor, that open failed and writes answered -32009
"unable to open database file" (issue 25). So reserve() descriptors are never given to
connections, and the soft limit is raised toward the hard one first where needed.
"""

from __future__ import annotations

import logging
import os
import resource

log = logging.getLogger("enyal.daemon")

# Descriptors never given to connections: SQLite's two per connection (the database
# and its WAL; the -shm is one per process) for the writer, the checkpointer and a reader
# per thread of the request, keyword and embedding pools (each cores + 2 at most); then
# the fixed ones (measured: 22 for an idle daemon: the model, the log, the pid and
# database locks, the listening socket, the event loop's), and room for the refusals
# that wait to be read.
FIXED = 32
REFUSING = 32  # refusals waiting at once for their client to read them, at most


def reserve() -> int:
    """Descriptors kept for everything but connections: 92 on 2 cores, where 39 were
    in use after 12 clients' recalls and writes."""
    threads = 3 * ((os.cpu_count() or 2) + 2)
    return FIXED + REFUSING + 2 * (threads + 2)


def connection_cap(configured: int) -> int:
    """The number of connections to serve at once (at least 1)."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return configured
    kept = reserve()
    want = configured + kept
    if soft != resource.RLIM_INFINITY and soft < want:
        raised = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (OSError, ValueError):
            pass
    if soft == resource.RLIM_INFINITY:
        return configured
    room = max(1, soft - kept)
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

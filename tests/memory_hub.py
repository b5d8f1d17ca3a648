"""An in-memory hub, for the replica's unit tests only.

It stands in for PostgreSQL ONLY to test the replica's ordering logic exhaustively: a
test can hand each replica the log in any order it likes (`Reordered`), which a real
server never would, to show the convergence rule does not depend on it. The end-to-end
tests (tests/test_hub_replica.py) use the real server (tests/pg_cluster.py). It keeps
the HubLink contract (enyal_daemon/hub/change.py): append-only log, change ids unique,
pull after a cursor, by spaces joined; `down` makes every call raise HubUnavailable.

Not a test module: imported by name (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from enyal_daemon.errors import HubUnavailable
from enyal_daemon.hub.change import Change, Pulled, Rejected
from enyal_daemon.hub.wake import Wake


class MemoryHub:
    def __init__(self) -> None:
        self.log: list[Pulled | Rejected] = []
        self.members: dict[str, set[str]] = {}  # role -> spaces
        self.down = False
        self.schema = 0
        self._ids: set[str] = set()
        self._lock = threading.Lock()
        self._new = threading.Condition(self._lock)

    def link(self, role: str = "team") -> MemoryLink:
        return MemoryLink(self, role)

    def append_raw(self, row: Pulled | Rejected) -> None:
        """A row as a broken or hostile writer left it (seq is given by the hub)."""
        with self._lock:
            seq = len(self.log) + 1
            if isinstance(row, Rejected):
                self.log.append(Rejected(seq=seq, reason=row.reason))
            else:
                self.log.append(Pulled(seq=seq, change=row.change))
                self._ids.add(row.change.change_id)
            self._new.notify_all()

    def changes(self) -> list[Change]:
        return [r.change for r in self.log if isinstance(r, Pulled)]


class MemoryLink:
    def __init__(self, hub: MemoryHub, role: str) -> None:
        self.hub = hub
        self.role = role

    def _up(self) -> None:
        if self.hub.down:
            raise HubUnavailable("the hub is down (a test's)")

    def init_schema(self) -> int:
        self._up()
        self.hub.schema = 1
        return 1

    def join(self, space: str) -> None:
        self._up()
        self.hub.members.setdefault(self.role, set()).add(space)

    def invite(self, space: str, role: str) -> None:
        self._up()

    def spaces(self) -> list[str]:
        self._up()
        return sorted(self.hub.members.get(self.role, set()))

    def push(self, changes: Sequence[Change]) -> None:
        self._up()
        with self.hub._lock:
            for c in changes:
                if c.change_id in self.hub._ids:
                    continue
                self.hub._ids.add(c.change_id)
                self.hub.log.append(Pulled(seq=len(self.hub.log) + 1, change=c))
            self.hub._new.notify_all()

    def _visible(self, row: Pulled | Rejected) -> bool:
        return isinstance(row, Rejected) or row.change.space in self.hub.members.get(
            self.role, set()
        )

    def pull(self, after: int, limit: int, space: str | None = None) -> list[Pulled | Rejected]:
        self._up()
        with self.hub._lock:
            rows = [r for r in self.hub.log[after:] if self._visible(r)]
        if space is not None:
            rows = [r for r in rows if isinstance(r, Pulled) and r.change.space == space]
        return rows[:limit]

    def head(self) -> int:
        self._up()
        return len(self.hub.log)

    def wait(self, timeout: float, wake: Wake | None = None) -> bool:
        self._up()
        if wake is None:
            with self.hub._new:
                return self.hub._new.wait(timeout)
        # A condition cannot be waited on with a pipe: slices, for the stand-in only.
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0 and not wake.is_set():
            with self.hub._new:
                if self.hub._new.wait(min(left, 0.05)):
                    return True
        return False

    def close(self) -> None:
        pass


class Reordered(MemoryLink):
    """A link that hands the hub's log over in the order given (a permutation of its
    positions), renumbered 1..n: what no server does, to test that the order of arrival
    does not matter."""

    def __init__(self, hub: MemoryHub, order: Sequence[int]) -> None:
        super().__init__(hub, "all")
        self.rows: list[Pulled | Rejected] = []
        for i, pos in enumerate(order, start=1):
            row = hub.log[pos]
            self.rows.append(
                Pulled(seq=i, change=row.change)
                if isinstance(row, Pulled)
                else Rejected(seq=i, reason=row.reason)
            )

    def pull(self, after: int, limit: int, space: str | None = None) -> list[Pulled | Rejected]:
        return self.rows[after : after + limit]

    def head(self) -> int:
        return len(self.rows)

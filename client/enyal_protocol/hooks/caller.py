"""What the hook logic needs from whoever runs it: a way to call the daemon, and the
error it raises for hook input it cannot use.

The same logic runs in three places (docs/ARCHITECTURE.md, "Hooks and what they cost"):
`enyal hook EVENT` over a fresh socket connection, the MCP shim's enyal_hook tool over
its warm one, and the daemon's loopback HTTP endpoint in process. Each hands it a Caller;
the logic never knows which."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own constant would import typing (enyal_protocol/records.py)
if TYPE_CHECKING:  # a type only: `enyal hook EVENT` imports no typing (Protocol is its)
    from typing import Any, Protocol

    class Caller(Protocol):
        def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
            """Run a daemon method; its result object as JSON decodes it (the Struct of
            wire.py it is, as a dict: the logic needs no msgspec, so `enyal hook EVENT`
            imports none). Raises on a refusal."""
            ...


class HookInputError(ValueError):
    """The hook's JSON lacks what the event needs (no cwd, no prompt, …)."""

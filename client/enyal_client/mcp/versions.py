"""MCP protocol revisions: which we speak, how a client picks one, what each allows.

Two eras share the one stdio stream. Handshake-era clients (2025-11-25 and
before) pick a version once with `initialize`; modern clients (2026-07-28)
name it in every request's `_meta`. Per the 2026-07-28 versioning page a
dual-era server may serve both at once, so the era is decided per request.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own constant would import typing (lean_start.py)
if TYPE_CHECKING:
    from typing import Any

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
# Oldest to newest: feature checks compare positions, never the date strings.
KNOWN_VERSIONS = HANDSHAKE_VERSIONS + MODERN_VERSIONS
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[-1]

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"

# Where a feature first appeared.
TOOL_ANNOTATIONS = "2025-03-26"
STRUCTURED_OUTPUT = "2025-06-18"  # outputSchema, structuredContent, tool titles
# SEP-1303: arguments a tool's schema refuses are a tool error (isError) the model reads and
# corrects its call from; earlier revisions name them a protocol error (-32602).
ARGUMENT_ERRORS_AS_RESULTS = "2025-11-25"


def negotiate_handshake(requested: str) -> str:
    """The lifecycle rule: echo the client's version if we speak it, else offer our latest."""
    return requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE


def at_least(version: str, minimum: str) -> bool:
    return KNOWN_VERSIONS.index(version) >= KNOWN_VERSIONS.index(minimum)


def is_modern(params: dict[str, Any] | None) -> bool:
    """Whether a request claims the modern era: only 2026+ envelopes carry this reserved key."""
    meta = (params or {}).get("_meta")
    return isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta


def modern_version(params: dict[str, Any] | None) -> str:
    """The version a modern request's envelope names, once the envelope checks out."""
    # Imported here: the session's first messages are answered without msgspec, which the
    # JSON-RPC framing needs (lean_start.py), and a modern request is never one of them.
    from .wire import INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION, Fault

    meta = (params or {}).get("_meta")
    if not isinstance(meta, dict):
        raise Fault(
            INVALID_PARAMS,
            f"params._meta must be an object carrying {PROTOCOL_VERSION_KEY!r} "
            f"and {CLIENT_CAPABILITIES_KEY!r}",
        )
    missing = [k for k in (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY) if k not in meta]
    if missing:
        raise Fault(INVALID_PARAMS, f"params._meta lacks the required key(s): {', '.join(missing)}")
    version = meta[PROTOCOL_VERSION_KEY]
    if not isinstance(version, str):
        raise Fault(INVALID_PARAMS, f"{PROTOCOL_VERSION_KEY} must be a string")
    if version not in MODERN_VERSIONS:
        # Listing the handshake versions too lets a dual-era client whose modern
        # versions are all unknown to us fall back to initialize instead of giving up.
        raise Fault(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": [*MODERN_VERSIONS, *reversed(HANDSHAKE_VERSIONS)], "requested": version},
        )
    return version

"""How a message travels on the daemon's socket, apart from what it says (wire.py): the
facts both client transports share. transport.py (msgspec, every client) and
hook_rpc.py (the standard library's json, `enyal hook EVENT` alone) frame alike
because they read these; importing this costs nothing, which is why they are not in
wire.py, whose import builds every Struct."""

from __future__ import annotations

PROTOCOL_VERSION = 1
JSONRPC = "2.0"
DELIMITER = b"\n"  # one JSON object a line, each way
MAX_FRAME_BYTES = 1024 * 1024  # a request (or a notification) the daemon reads
MAX_BATCH_REQUESTS = 100  # requests in one batch array (a frame holding an array), at most
MAX_LINE = MAX_FRAME_BYTES * 64  # a response a client reads: it may hold a whole export page

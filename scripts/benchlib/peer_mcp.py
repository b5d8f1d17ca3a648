"""The per-client alternative: an MCP stdio server with the engine inside it, as peers do.

Every MCP process loads the model, opens the database file and builds its own
vector index before it can answer; this script does exactly that with Enyal's own
engine (enyal_daemon.service.core.engine.Engine and its verbs), then answers
initialize and tools/call enyal_recall on stdin/stdout. `--once QUERY` instead
runs one recall and prints it: the per-client CLI.

    ENYAL_HOME=... python scripts/benchlib/peer_mcp.py [--once QUERY]
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def load_engine() -> Any:
    from enyal_daemon.embedder import build8
    from enyal_daemon.embedder.model_files import locate
    from enyal_daemon.service.core.engine import Engine
    from enyal_protocol import paths

    p = paths.resolve()
    return Engine(p.db, build8.load(locate(p.data_dir), p.cache_dir))


def recall(memory: Any, arguments: dict[str, Any]) -> Any:
    import msgspec

    from enyal_protocol import wire as p

    params = msgspec.convert({"cwd": os.getcwd(), **arguments}, p.RecallParams)
    from enyal_daemon.service.memory.recall import recall as recall_verb

    return msgspec.to_builtins(recall_verb(memory, params))


def serve(memory: Any) -> None:
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if rid is None:
            continue  # notifications need no answer
        if method == "initialize":
            result: Any = {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "enyal-peer-bench", "version": "0"},
            }
        elif method == "tools/call" and msg["params"]["name"] == "enyal_recall":
            hits = recall(memory, msg["params"].get("arguments") or {})
            text = json.dumps(hits)
            result = {"content": [{"type": "text", "text": text}], "isError": False}
        else:
            err = {"code": -32601, "message": f"not in the benchmark server: {method}"}
            out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": err}) + "\n")
            out.flush()
            continue
        out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
        out.flush()


def main() -> int:
    memory = load_engine()
    try:
        if len(sys.argv) == 3 and sys.argv[1] == "--once":
            print(json.dumps(recall(memory, {"query": sys.argv[2]})))
        else:
            serve(memory)
    finally:
        memory.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

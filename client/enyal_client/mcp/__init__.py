"""`enyal-mcp`, the MCP server on stdio (a thin client of the daemon).

shim         the entry point: stdin lines in, exit 0 on EOF
lean_start   the session's first messages, answered before the server is loaded
facts        what the shim says of itself, in plain values (both paths use them)
stdio        the server on stdio, whole: options, logging, the read loop
server       lifecycle, routing by method and protocol era, concurrent tool calls
wire         JSON-RPC framing: parsing frames, writing whole lines
versions     the MCP revisions we speak and what each allows
messages     the MCP results, as msgspec Structs
tools        the tool table; schemas and argument checks come from enyal_protocol.wire
schemas      protocol Struct -> self-contained JSON Schema
calls        one tool call against the daemon, shaped as a tool result
(the pool of daemon connections is enyal_client/pool.py, shared with the web view)
"""

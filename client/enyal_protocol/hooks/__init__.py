"""What Enyal does for each Claude Code hook event (answer.py): inject context
(inject.py), capture a session's digest (transcript.py reads it, capture.py writes it),
re-index instructions. Shared by every host of a hook: `enyal hook EVENT`, the MCP
shim's enyal_hook tool and the daemon's HTTP endpoint, each handing it a Caller
(caller.py); token.py is the HTTP endpoint's bearer token."""

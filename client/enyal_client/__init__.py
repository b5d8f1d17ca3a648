"""Enyal's thin clients: the CLI, the MCP shim, and the wire they share with the daemon."""

__version__ = "0.1.0"

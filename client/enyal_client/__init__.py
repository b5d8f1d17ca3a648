"""Enyal's thin clients: the CLI and the MCP shim. What they share with the daemon is
the enyal_protocol package."""

from enyal_protocol import __version__

__all__ = ["__version__"]

"""Enyal's daemon: the one process that owns the database and the warm model."""

from enyal_protocol import __version__

__all__ = ["__version__"]

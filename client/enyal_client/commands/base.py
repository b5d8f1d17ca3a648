"""What every verb module shares: the registry it adds verbs to, and argument types.

A verb's handler takes a Context (which connects to the daemon only when asked,
so verbs like `doctor` or `service` work without one) and the parsed args, and
returns (result for --json, text for people).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import msgspec

from ..transport import Connection, connect

if TYPE_CHECKING:  # argparse only for the type: `enyal hook` runs without importing it
    import argparse

Args: TypeAlias = "argparse.Namespace"


class UsageError(Exception):
    """A mistake in the command line that argparse cannot see (exit code 2)."""


class LeftForReview(Exception):
    """The verb did its work, but left something for a person: its result is printed as
    any is, then `note` on stderr, and the CLI exits with `code` (a script must not take
    it for done, nor for a failure: nothing failed)."""

    def __init__(self, result: Any, text: str, code: int, note: str) -> None:
        super().__init__(note)
        self.result, self.text, self.code, self.note = result, text, code, note


@dataclass
class Context:
    autostart: bool = True
    _conn: Connection | None = None

    def connection(self) -> Connection:
        if self._conn is None:
            self._conn = connect(autostart=self.autostart)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


Result = tuple[Any, str]
Handler = Callable[[Context, Args], Result]


def on_daemon(fn: Callable[[Connection, Args], Result]) -> Handler:
    """Adapt a verb that only talks to the daemon."""

    def handler(ctx: Context, args: Args) -> Result:
        return fn(ctx.connection(), args)

    return handler


@dataclass
class Registry:
    sub: Any  # argparse's _SubParsersAction, which typeshed keeps private
    common: argparse.ArgumentParser
    handlers: dict[str, Handler] = field(default_factory=dict)

    def verb(self, name: str, help: str, handler: Handler) -> argparse.ArgumentParser:
        self.handlers[name] = handler
        parser: argparse.ArgumentParser = self.sub.add_parser(
            name, help=help, description=help, parents=[self.common]
        )
        return parser


def drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def json_object(text: str) -> Any:
    import argparse  # loaded already: only argparse calls this

    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value

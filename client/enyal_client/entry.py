"""`enyal`'s console script: picks a command line's path before anything heavy is loaded.

`enyal hook EVENT` runs before every prompt Claude Code sends (a command hook), so it
goes straight to commands/hook.py's run(), which needs neither argparse nor cli.py nor
any other verb's module; `enyal recall` on a plain command line goes to
commands/lean_recall.py's, which needs no msgspec either; every other command line,
and any those two leave, is cli.py's. Measured in docs/ARCHITECTURE.md, "Client
start-up".

Ctrl-C stops every command line with one line on stderr and exit status 130
(interrupted()); cli.py's start-up holds it until the verb's work begins (interrupts.py).
"""

from __future__ import annotations

import os
import sys


def requested_verb(argv: list[str]) -> str | None:
    """The verb of a command line: its first word that is not an option."""
    return next((a for a in argv if not a.startswith("-")), None)


def interrupted(argv: list[str]) -> int:
    """Ctrl-C stopped the command: say so in a line, and exit as a shell reports a command
    SIGINT stopped. A second Ctrl-C meanwhile is ignored (the run is over)."""
    # Imported here: the console script imports this module before main() can hold
    # Ctrl-C (interrupts.py), so what it imports first is kept to the least.
    import signal

    from enyal_protocol.exits import EXIT_INTERRUPTED

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    verb = requested_verb(argv)
    print(f"enyal{f' {verb}' if verb else ''}: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def reader_gone() -> int:
    """`enyal export | head`: the reader has what it wanted. Point stdout at /dev/null so
    the interpreter's final flush does not fail a second time."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        return interrupted(args)


def _dispatch(args: list[str]) -> int:
    code = None
    try:
        if args[:1] == ["hook"]:
            from .commands import hook

            code = hook.run(args[1:])
        elif "recall" in args:
            from .commands import lean_recall

            code = lean_recall.run(args)
    except BrokenPipeError:
        return reader_gone()
    if code is not None:
        return code
    from . import interrupts

    interrupts.hold()  # until cli.py's imports are done and the verb's work begins
    if sys.flags.no_site and "site" not in sys.modules:
        # Started by client/scripts/enyal-hook, which skips site for the hook's own path:
        # cli.py's dependencies (msgspec, platformdirs) may need what site puts on sys.path.
        import site

        site.main()
    from .cli import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())

"""`enyal`'s console script: picks a command line's path before anything heavy is loaded.

`enyal hook EVENT` runs before every prompt Claude Code sends (a command hook), so it
goes straight to commands/hook.py's run(), which needs neither argparse nor cli.py nor
any other verb's module; `enyal recall` on a plain command line goes to
commands/lean_recall.py's, which needs no msgspec either; every other command line,
and any those two leave, is cli.py's. Measured in docs/ARCHITECTURE.md, "Client
start-up"."""

from __future__ import annotations

import os
import sys


def reader_gone() -> int:
    """`enyal export | head`: the reader has what it wanted. Point stdout at /dev/null so
    the interpreter's final flush does not fail a second time."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
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
    if sys.flags.no_site and "site" not in sys.modules:
        # Started by client/scripts/enyal-hook, which skips site for the hook's own path:
        # cli.py's dependencies (msgspec, platformdirs) may need what site puts on sys.path.
        import site

        site.main()
    from .cli import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())

"""Exit codes said once: the one a spawned daemon and the client that spawned it agree on,
the one Ctrl-C gives every command, and a refused command line's (never 2 for a hook)."""

# EX_TEMPFAIL: another daemon already serves this database; the spawner then just connects.
EXIT_ALREADY_RUNNING = 75

EXIT_INTERRUPTED = 130  # what a shell reports for a command stopped by SIGINT

EXIT_USAGE = 2  # a command line argparse or the verb refused, as Unix tools exit
# `enyal hook`'s refusals of every kind, its command line's too: Claude Code treats exit 2
# from a hook as "block" (the prompt erased, the tool call refused), 1 as an error it notes
# and moves past. A hook's command line is written once into a settings file and then run
# by every version installed later: one it does not read must not stop the user's work.
EXIT_HOOK_FAILED = 1

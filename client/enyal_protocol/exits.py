"""Exit codes a spawned daemon and the client that spawned it agree on, and the one
Ctrl-C gives every command."""

# EX_TEMPFAIL: another daemon already serves this database; the spawner then just connects.
EXIT_ALREADY_RUNNING = 75

EXIT_INTERRUPTED = 130  # what a shell reports for a command stopped by SIGINT

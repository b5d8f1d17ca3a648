"""Exit codes a spawned daemon and the client that spawned it agree on."""

# EX_TEMPFAIL: another daemon already serves this database; the spawner then just connects.
EXIT_ALREADY_RUNNING = 75

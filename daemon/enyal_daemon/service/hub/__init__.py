"""The daemon as a replica of a team hub (issue 28; docs/ARCHITECTURE.md, "The replica"):
the outbox's capture, the convergence rule, the worker, and the hub verbs."""

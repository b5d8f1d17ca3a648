"""The engine and what it owns: the one writer's bookkeeping, the change
publisher, the sessions' shown-keys state. Imports only rules."""

"""Memory hygiene: what must not be stored as is (secrets) and what must not be read as
instructions (text aimed at the agent)."""

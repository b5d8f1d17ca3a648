"""The pieces of scripts/bench: one module per measured thing, each small."""

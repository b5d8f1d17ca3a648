"""The CLI's verbs, one module per family; each module has a `register(registry)`."""

"""What `enyal hook EVENT` does for each Claude Code event: inject (inject.py), capture a
session's digest (transcript.py reads it, capture.py writes it), re-index instructions."""

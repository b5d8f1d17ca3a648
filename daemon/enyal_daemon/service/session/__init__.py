"""An agent session's view: the brief, the day log, tasks, session_seen.
Built on memory; imports any room below it."""

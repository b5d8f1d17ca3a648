"""`python -m enyal_daemon <tool>`: daemon-only work the CLI runs as a subprocess.

The client never imports this package's libraries (numpy, onnxruntime, apsw): it runs
these tools and decodes their one JSON document (enyal_protocol.tools). One module per
job; entry.py parses the command line and writes the result.

    model status|verify|path|fetch   where the model is, its hashes, a download
    reindex                          re-embed every entry with the model found now
    doctor                           the doctor's SQLite, model and database checks

Beside the commands, two offline jobs' own code, which never runs in the daemon:
reindexing.py (what `reindex` runs) and bulk.py (the benchmark's bulk load).
"""

"""The reliability suite's cases (scripts/torture): crashes, many clients, malformed
frames, failing storage and the export round trip, each against a real daemon."""

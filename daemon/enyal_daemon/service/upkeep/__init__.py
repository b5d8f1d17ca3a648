"""Looking after a store: health, stats, analytics, scan, backup, transfer
(import/export), backfill. Imports files, core, rules; never memory."""

"""The team hub's link: PostgreSQL behind the daemon (docs/ARCHITECTURE.md, "Beyond one
machine"). Only this package talks to PostgreSQL; the service sees `HubLink`."""

"""What the daemon and every client share: the wire, the paths, the config, the version.

    wire    every JSON-RPC method's params and result (msgspec Structs), the method
            table, the error codes and the frame limit
    paths   where the database, socket, logs and config live (ENYAL_HOME, platformdirs)
    config  config.toml and ENYAL_* over it
    exits   process exit codes both sides agree on

Light on purpose: msgspec, platformdirs and the standard library only, because the
thin clients import it on every start. The daemon imports this package and never
the client's; the client imports this package and never the daemon's.
"""

__version__ = "0.1.0"

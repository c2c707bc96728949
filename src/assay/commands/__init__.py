"""``assay`` subcommands: one module each, exposing ``register(subparsers)``."""


class UsageError(Exception):
    """A bad argument or unreadable input: printed as ``assay: error: …`` with exit 2."""

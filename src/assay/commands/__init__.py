"""``assay`` subcommands: one module each, exposing ``register(subparsers)``."""

from assay.errors import InputError


class UsageError(InputError):
    """A bad argument or unreadable input: printed as ``assay: error: …`` with exit 2."""

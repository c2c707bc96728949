"""``assay`` subcommands: one module each, exposing ``register(subparsers)``.

A command module imports only the standard library at module level: ``assay --help`` and every
subcommand's ``--help`` build every parser, so heavy imports (pydantic, scipy, docker, DuckDB,
pyarrow) belong inside the handler that needs them.
"""

from __future__ import annotations

import argparse

from assay.errors import InputError


class UsageError(InputError):
    """A bad argument or unreadable input: each argument is printed as one ``assay: error: …``
    line, with exit 2."""

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(str(arg) for arg in self.args) or ("error",)


def add_data_argument(parser: argparse.ArgumentParser, what: str = "the evidence folder") -> None:
    """``--data``: the folder the pipeline writes (``assay.evidence.DATA`` unless given)."""
    from assay.evidence.paths import DATA

    parser.add_argument("--data", default=str(DATA), help=f"{what} (default: {DATA})")

"""``assay`` subcommands: one module each, exposing ``register(subparsers)``.

A command module imports only the standard library at module level: ``assay --help`` and every
subcommand's ``--help`` build every parser, so heavy imports (pydantic, scipy, docker, DuckDB,
pyarrow) belong inside the handler that needs them.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from assay.core.errors import InputError


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


def add_described(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    description: str,
) -> argparse.ArgumentParser:
    """A subcommand listed with ``summary``, whose ``--help`` prints ``description`` as written
    (its examples and lists)."""
    return subparsers.add_parser(
        name,
        help=summary,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Columns padded to their widest cell, two spaces apart, no trailing blanks."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())

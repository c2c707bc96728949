"""The ``assay`` command: a thin dispatcher over ``assay.commands``.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``handler`` (a function taking the parsed namespace and returning an exit code). Bad arguments
and unreadable inputs exit 2 with a message, as argparse does; any other ``AssayError`` is
``assay: <message>`` and exit 1 (``assay.errors.boundary``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from assay.commands import UsageError
from assay.errors import boundary

__all__ = ["UsageError", "build_parser", "main"]

DESCRIPTION = (
    "assay: does an LLM coding model reuse an existing abstraction more often when the repository "
    "around it reuses it consistently? Pipeline: `dvc repro`; these commands inspect, authorize, "
    "score and query."
)

COMMAND_MODULES = (
    "assay.commands.score_structure",
    "assay.commands.sign_test",
    "assay.commands.pipeline",
    "assay.commands.sandbox_run",
    "assay.commands.check_provider",
    "assay.commands.measure",
    "assay.commands.costs",
    "assay.commands.show",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assay", description=DESCRIPTION)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    with boundary():
        try:
            return int(args.handler(args))
        except UsageError as exc:
            parser.exit(2, f"assay: error: {exc}\n")


if __name__ == "__main__":
    sys.exit(main())

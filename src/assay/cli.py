"""The ``assay`` command: a thin dispatcher over ``assay.commands``.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``handler`` (a function taking the parsed namespace and returning an exit code). Bad arguments
and unreadable inputs exit 2 with one ``assay: error: …`` line per problem, as argparse does;
any other ``AssayError`` is ``assay: <message>`` and exit 1 (``assay.core.errors.boundary``).

Building the parser imports only the standard library (command modules import what they need
inside their handlers), so ``assay --help`` and every ``--help`` answer at once.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from assay.commands import UsageError
from assay.core.errors import boundary

__all__ = ["UsageError", "build_parser", "main"]

DESCRIPTION = (
    "assay: does an LLM coding model reuse an existing abstraction more often when the repository "
    "around it reuses it consistently? Pipeline: `dvc repro`; these commands inspect, authorize, "
    "score and query."
)

COMMAND_MODULES = (
    "assay.commands.check",
    "assay.commands.fixtures",
    "assay.commands.runs",
    "assay.commands.score_structure",
    "assay.commands.sign_test",
    "assay.commands.power",
    "assay.commands.pipeline",
    "assay.commands.sql",
    "assay.commands.sandbox_run",
    "assay.commands.check_provider",
    "assay.commands.measure",
    "assay.commands.costs",
    "assay.commands.bundles",
    "assay.commands.rescore",
    "assay.commands.compare",
    "assay.commands.adjudicate",
    "assay.commands.show",
    "assay.commands.inspect_view",
)


class _VersionAction(argparse.Action):
    """``--version``, reading the installed version only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import version

        print(f"assay {version('assay')}")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assay", description=DESCRIPTION)
    parser.add_argument("--version", action=_VersionAction)
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
            parser.exit(2, "".join(f"assay: error: {line}\n" for line in exc.lines))
        except BrokenPipeError:
            # the reader went away (`assay sql ... | head`): stop quietly, as `cat` does
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 141  # 128 + SIGPIPE, what a shell reports for a command killed by it


if __name__ == "__main__":
    sys.exit(main())

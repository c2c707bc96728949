"""``assay costs``: the "what duplication costs" report over stored evidence, against any arm."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.cli import UsageError


def _costs(args: argparse.Namespace) -> int:
    import duckdb

    from assay.report.costs import build_costs, render_costs_markdown
    from assay.report.database import connect

    try:
        costs = build_costs(connect(Path(args.data)), args.reference_arm)
    except (FileNotFoundError, duckdb.Error) as exc:
        raise UsageError(str(exc)) from None
    print(render_costs_markdown(costs), end="")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "costs",
        help="code metrics by structural verdict and by arm",
        description="Print (Markdown, to stdout) what duplication costs: code-metric changes by "
        "structural verdict, by family and per arm against a reference arm, over stored evidence.",
    )
    parser.add_argument("--data", default="data", help="the evidence folder (default: data)")
    parser.add_argument(
        "--reference-arm",
        default=None,
        help="the arm every other arm is compared with (default: each run's clean or mess-00 arm)",
    )
    parser.set_defaults(handler=_costs)

"""``assay costs``: the "what duplication costs" report over stored evidence, against any arm."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.commands import UsageError, add_data_argument


def _costs(args: argparse.Namespace) -> int:
    import duckdb

    from assay.config.params import CostRuns
    from assay.report.costs import build_costs, render_costs_markdown
    from assay.report.database import connect

    chosen = CostRuns(
        runs=args.run, scenarios=args.scenario, models=args.model,
        include_simulated=args.include_simulated,
    )  # fmt: skip
    try:
        costs = build_costs(connect(Path(args.data)), args.reference_arm, chosen)
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
    add_data_argument(parser)
    parser.add_argument(
        "--reference-arm",
        default=None,
        help="the arm every other arm is compared with (default: each run's clean or mess-00 arm)",
    )
    for option, what in (("--run", "run"), ("--scenario", "scenario"), ("--model", "model")):
        parser.add_argument(
            option, action="append", default=None, help=f"pool only this {what} (repeatable)"
        )
    parser.add_argument(
        "--include-simulated",
        action="store_true",
        help="pool simulated runs too (never pooled with real runs otherwise)",
    )
    parser.set_defaults(handler=_costs)

"""``assay measure``: code metrics of a stored (or replayed) run, with no provider and no sandbox."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.cli import UsageError


def _measure(args: argparse.Namespace) -> int:
    from assay.metrics.run import MeasureInputError, measure_run

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    try:
        return measure_run(args.candidates, args.scenario, args.out, workers=args.workers)
    except MeasureInputError as exc:
        raise UsageError(str(exc)) from None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "measure",
        help="run the pinned code-metric tools on every gate-accepted output, before and after",
        description=(
            "Measure every gate-accepted code output of a run as a change to its arm's repository "
            "and write long-form rows (cell_id, tool, tool_version, metric, before, after, delta, "
            "missing_reason) to Parquet."
        ),
    )
    parser.add_argument(
        "--candidates", type=Path, required=True, help="candidates.parquet of the run"
    )
    parser.add_argument(
        "--scenario", type=Path, required=True, help="scenario.json of the run's scenario"
    )
    parser.add_argument("--out", type=Path, required=True, help="output Parquet path")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.set_defaults(handler=_measure)

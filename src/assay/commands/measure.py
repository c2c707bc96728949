"""``assay measure``: code metrics of a stored (or replayed) run, with no provider and no sandbox."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.commands import UsageError


def _measure(args: argparse.Namespace) -> int:
    from assay import evidence
    from assay.core.errors import EvidenceError
    from assay.core.tables import write_records
    from assay.pipeline.measure import measure_run

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    try:
        candidates = evidence.read_rows(args.candidates, evidence.CandidateRow)
        scenario = evidence.read_scenario_file(args.scenario)
        rows = measure_run(candidates, scenario, workers=args.workers)
    except EvidenceError as exc:
        raise UsageError(str(exc)) from None
    write_records(args.out, evidence.MetricRow, rows)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "measure",
        help="run the pinned code-metric tools on every gate-accepted output, before and after",
        description=(
            "Measure every gate-accepted code output of a run (an extract stage's "
            "candidates.parquet) as a change to its arm's repository and write long-form rows "
            "(the cell key, tool, tool_version, metric, before, after, delta, missing_reason) "
            "to Parquet."
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

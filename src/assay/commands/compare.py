"""``assay compare RUN_A RUN_B``: the exploratory cross-model comparison of two runs of one
scenario (per subject, cells that reused the helper; exact sign test per arm)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from assay.commands import UsageError, add_data_argument


def _compare(args: argparse.Namespace) -> int:
    import duckdb

    from assay.report.compare import CompareError, compare_runs, render_comparison_markdown
    from assay.report.database import connect

    try:
        comparison = compare_runs(connect(Path(args.data)), args.first, args.second)
    except (CompareError, FileNotFoundError, duckdb.Error) as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        print(json.dumps(comparison.model_dump(mode="json"), indent=2, sort_keys=True))
    else:
        print(render_comparison_markdown(comparison), end="")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare", help="exploratory: two runs of one scenario, subject by subject"
    )
    parser.add_argument("first", metavar="RUN_A", help="one run")
    parser.add_argument("second", metavar="RUN_B", help="another run of the same scenario")
    add_data_argument(parser, "the data folder")
    parser.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="default: markdown"
    )
    parser.set_defaults(handler=_compare)

"""``assay show RUN CELL``: one cell in the terminal, as the HTML report's cell page shows it."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.commands import UsageError, add_data_argument


def _show(args: argparse.Namespace) -> int:
    import duckdb

    from assay.report.cell_browser import cell_records, render_text
    from assay.report.database import connect

    try:
        records = cell_records(connect(Path(args.data)), args.run, args.cell, local=True)
    except (FileNotFoundError, duckdb.Error) as exc:
        raise UsageError(str(exc)) from None
    if args.step is not None:
        records = [r for r in records if r.step == args.step]
    if not records:
        raise UsageError(
            f"no cell {args.cell!r} in run {args.run!r} (cells look like subject/arm/r1; "
            "list them with: assay sql \"SELECT cell_id FROM cells WHERE run = 'RUN'\")"
        )
    print("\n".join(render_text(r, prompt=not args.no_prompt) for r in records), end="")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show",
        help="one cell: prompt, response, candidate, verdict with its explanation, "
        "correctness per case, metric deltas",
    )
    parser.add_argument("run", help="run id (a key of params.yaml: runs)")
    parser.add_argument("cell", help="cell id, e.g. card-mask/clean/r1")
    parser.add_argument("--step", type=int, default=None, help="only this chain step")
    parser.add_argument("--no-prompt", action="store_true", help="leave the prompt out")
    add_data_argument(parser, "the data folder")
    parser.set_defaults(handler=_show)

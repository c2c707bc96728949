"""``assay inspect-view DEST``: the study's Inspect logs with Inspect's viewer, in one folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.commands import add_data_argument


def _inspect_view(args: argparse.Namespace) -> int:
    from assay.evidence.paths import inspect_logs_dir
    from assay.inspect.viewer import bundle

    dest = Path(args.dest)
    count = bundle(inspect_logs_dir(Path(args.data)), dest)
    print(f"{dest}: Inspect's viewer with {count} run logs")
    print(f"open it with: python -m http.server --bind 127.0.0.1 --directory {dest} 8000")
    print("then http://127.0.0.1:8000/ in a browser")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    view = subparsers.add_parser(
        "inspect-view",
        help="bundle every run's Inspect log with Inspect's viewer into a new folder",
    )
    view.add_argument("dest", help="a new (or empty) folder; never overwritten")
    add_data_argument(view, "the pipeline's data folder")
    view.set_defaults(handler=_inspect_view)

"""``assay check``: validate all of params.yaml, as the ``params`` stage does before `dvc repro`."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.commands import UsageError


def _check(args: argparse.Namespace) -> int:
    from assay.params import ParamsError, load_params

    try:
        params = load_params(args.params)
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    print(
        f"{args.params}: valid ({len(params.runs)} runs, {len(params.models)} models, "
        f"scenarios {', '.join(params.scenarios) or 'none'})"
    )
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser(
        "check",
        help="validate params.yaml (every problem, one line each, naming the key)",
        description="Validate all of params.yaml against its schema: the same check the first "
        "`params` stage of `dvc repro` runs before any stage's outputs are touched.",
    )
    check.add_argument("--params", type=Path, default=Path("params.yaml"), help="the file to check")
    check.set_defaults(handler=_check)

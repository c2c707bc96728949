"""``assay check``: validate all of params.yaml, as the ``params`` stage does before `dvc repro`."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.commands import UsageError


def _check(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params

    try:
        params = load_params(args.params)
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    print(
        f"{args.params}: valid ({len(params.runs)} runs, {len(params.models)} models, "
        f"scenarios {', '.join(params.scenarios) or 'none'})"
    )
    print(_check_fixtures(params))
    return 0


def _check_fixtures(params: object) -> str:
    """Every listed scenario's fixtures loaded (a bad file or key named) and their arms checked
    (assay.fixtures.manipulation), as the subjects stage does; the codebase sets are checked
    there, once the snapshot stage has sliced their code."""
    from assay.config.params import Params
    from assay.core.errors import InputError
    from assay.fixtures.codebase import SCENARIO_NAMES as CODEBASE
    from assay.fixtures.manipulation import problems
    from assay.fixtures.scenarios import load_scenario

    assert isinstance(params, Params)
    checked, lines = [], []
    for name in params.scenarios:
        if name in CODEBASE:
            continue
        try:
            scenario = load_scenario(name, Path(params.fixtures))
        except InputError as exc:
            lines.append(f"{name}: {exc}")
            continue
        lines += problems(scenario)
        checked.append(f"{name} ({len(scenario.subjects)} subjects)")
    if lines:
        raise UsageError(*lines)
    return (
        f"{params.fixtures}: valid ({', '.join(checked) or 'no scenario'}; the codebase sets "
        "are checked by the subjects stage)"
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser(
        "check",
        help="validate params.yaml and the fixtures (every problem, one line each)",
        description="Validate all of params.yaml against its schema (the same check the first "
        "`params` stage of `dvc repro` runs before any stage's outputs are touched), then load "
        "the fixtures of every scenario it lists and check that each subject's arms differ only "
        "where the scenario lets them (what the subjects stage checks).",
    )
    check.add_argument("--params", type=Path, default=Path("params.yaml"), help="the file to check")
    check.set_defaults(handler=_check)

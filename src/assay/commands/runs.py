"""``assay run add`` and ``assay run list``: declare runs in params.yaml and see where they are."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.commands import UsageError, add_data_argument, add_described, print_table

ADD_DESCRIPTION = """\
Declare a run in params.yaml (and its scenario under `scenarios:`), keeping the file's comments
and layout. Refused, with the file untouched, unless the result passes `assay check`: a new run
id of letters, digits, '_' and '-'; a model declared under `models:`; a known scenario (built-in,
or declared in the fixtures folder: `assay new-scenario`) and schedule; 1 to 20 repeats. A run id names one plan, one authorization and one ledger: a fresh
attempt is a new run id. --qualifies declares the qualification run a paid route needs before
any other run on it can be authorized (docs/paid-runs.md).
"""


def _run_add(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params
    from assay.config.params_edit import add_run

    model, scenario, repeats, schedule = args.model, args.scenario, args.repeats, args.schedule
    try:
        if args.like is not None:
            like = load_params(args.params).run(args.like)
            model, scenario = model or like.model, scenario or like.scenario
            repeats = like.repeats if repeats is None else repeats
            schedule = schedule or like.schedule
        if model is None or scenario is None:
            raise UsageError("give --model and --scenario, or --like RUN to copy them")
        add_run(
            Path(args.params),
            args.run,
            model=model,
            scenario=scenario,
            repeats=2 if repeats is None else repeats,
            schedule=schedule,
            qualifies=args.qualifies,
        )
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    print(f"added run {args.run} to {args.params}; `dvc repro` plans and runs it")
    return 0


def _run_list(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params
    from assay.paid.run_status import run_statuses

    try:
        params = load_params(args.params)
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    rows = [
        [str(v) for v in (s.run, s.model, s.mode, s.scenario, s.status, s.spend)]
        for s in run_statuses(params, Path(args.data))
    ]
    print_table(("run", "model", "mode", "scenario", "status", "spend"), rows)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = subparsers.add_parser("run", help="declare runs in params.yaml and list them")
    run_sub = run.add_subparsers(dest="run_command", required=True, metavar="ACTION")

    add = add_described(run_sub, "add", "declare a run", ADD_DESCRIPTION)
    add.add_argument("run", help="the new run id")
    add.add_argument(
        "--like",
        metavar="RUN",
        help="copy model, scenario, repeats and schedule from this declared run (never its "
        "authorization); the options below override them",
    )
    add.add_argument("--model", help="a profile declared under params.yaml: models")
    add.add_argument(
        "--scenario",
        help="a scenario: built-in (docs/scenarios.md) or declared (assay new-scenario)",
    )
    add.add_argument("--repeats", type=int, default=None, help="repeats per cell, 1-20 (default 2)")
    add.add_argument(
        "--schedule",
        default=None,
        help="subject-counterbalanced-v1 or subject-rotated-v1 (default: the scenario's)",
    )
    add.add_argument(
        "--qualifies",
        action="store_true",
        help="a qualification run of the model's paid route: 12 of the scenario's cells, which "
        "must all be answered before any other run on the route can be authorized",
    )
    add.add_argument("--params", default="params.yaml", help="the params file to edit")
    add.set_defaults(handler=_run_add)

    listing = run_sub.add_parser(
        "list",
        help="every declared run: model, prompting mode, scenario, status and spend",
        description="List the runs declared in params.yaml with their model, prompting mode, "
        "scenario, how far "
        "each has got in the pipeline (from --data) and what it spent (reserved / reported).",
    )
    listing.add_argument("--params", default="params.yaml", help="the params file")
    add_data_argument(listing)
    listing.set_defaults(handler=_run_list)

"""Pipeline commands: ``assay plan show`` and ``assay authorize``."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.cli import UsageError


def _plan_show(args: argparse.Namespace) -> int:
    from assay.params import ParamsError, load_params
    from assay.pipeline.plan import make_plan
    from assay.plan import summary

    try:
        params = load_params(args.params)
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    try:
        plan = make_plan(args.run, params)
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    except FileNotFoundError as exc:
        raise UsageError(
            f"{exc} (run `dvc repro` for the subjects and render stages first)"
        ) from None
    print(summary(plan))
    return 0


def _authorize(args: argparse.Namespace) -> int:
    from assay.params import ParamsError, load_params
    from assay.params_edit import write_authorization
    from assay.pipeline.plan import make_plan

    try:
        plan = make_plan(args.run, load_params(args.params))
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    if args.plan_hash != plan.hash:
        raise UsageError(
            f"plan hash {args.plan_hash} is not the current plan of {args.run} ({plan.hash}); "
            f"inspect it with `assay plan show {args.run}`"
        )
    if not plan.budget.paid:
        print(f"{args.run} is free: no authorization needed")
        return 0
    write_authorization(Path(args.params), args.run, plan.hash)
    print(
        f"authorized {args.run}: plan {plan.hash}, worst case ${plan.budget.worst_case_usd:.2f}; "
        "run `dvc repro` to execute"
    )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    plan = subparsers.add_parser("plan", help="inspect a run's plan")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True)
    show = plan_sub.add_parser("show", help="cells, worst-case cost and plan hash of a run")
    show.add_argument("run", help="a run declared under params.yaml: runs")
    show.add_argument("--params", default="params.yaml", help="the params file")
    show.set_defaults(handler=_plan_show)

    auth = subparsers.add_parser("authorize", help="approve a paid run's plan hash in params.yaml")
    auth.add_argument("run", help="a paid run declared under params.yaml: runs")
    auth.add_argument(
        "--plan-hash", required=True, help="the hash you inspected with `assay plan show`"
    )
    auth.add_argument("--params", default="params.yaml", help="the params file to edit")
    auth.set_defaults(handler=_authorize)

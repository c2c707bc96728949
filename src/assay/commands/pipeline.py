"""Pipeline commands: ``assay plan show`` and ``assay authorize``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from assay.commands import UsageError
from assay.pipeline.layout import repro_command

if TYPE_CHECKING:
    from assay.config.params import Params
    from assay.evidence.plan import Plan


def _plan_show(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params
    from assay.evidence.plan import Preregistration
    from assay.paid.plan import summary
    from assay.paid.preregistration import preregistration_lines, stale_authorization
    from assay.pipeline.plan import kept_or_current, make_plan

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
    now = Preregistration.of(params.analysis, params.run(args.run).repeats)
    print("\n".join(preregistration_lines(plan, now)))
    _print_design(plan, params)
    _, replanned = kept_or_current(args.run, Path(params.ledger_root), plan, tuple(params.runs))
    if replanned:
        print(f"\n{replanned}")
    stale = stale_authorization(plan, params.run(args.run), Path(params.ledger_root))
    if stale:
        print(f"\n{stale}")
    return 0


def _print_design(plan: Plan, params: Params) -> None:
    """What the run's design can decide, and the qualification its route needs."""
    from assay.paid import design, qualification

    repro = repro_command(plan.model.api_key_env)
    for line in (
        *design.lines(plan, params.power),
        *qualification.lines(plan, params, repro=repro),
    ):
        print(line)


def _authorize(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params
    from assay.config.params_edit import write_authorization
    from assay.paid import qualification
    from assay.paid.authorize import SpendRefused, issue_token, partial_refusal, replanned_refusal
    from assay.paid.ledger import LedgerBindingError
    from assay.paid.seal import sealed_run
    from assay.pipeline.plan import make_plan

    try:
        params = load_params(args.params)
        plan = make_plan(args.run, params)
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    if plan.budget.paid:
        # first: a run that sent is never authorized again, whichever hash is given
        root = Path(params.ledger_root)
        kept = sealed_run(root, args.run) is not None
        replanned = replanned_refusal(plan, root, tuple(params.runs), kept=kept)
        if replanned is not None:
            raise UsageError(replanned)
    if args.plan_hash != plan.hash:
        raise UsageError(
            f"plan hash {args.plan_hash} is not the current plan of {args.run} ({plan.hash}); "
            f"inspect it with `assay plan show {args.run}`"
        )
    if not plan.budget.paid:
        print(f"{args.run} is free: no authorization needed")
        return 0
    unqualified = qualification.refusal(plan, params, repro=repro_command(plan.model.api_key_env))
    if unqualified is not None:
        raise UsageError(unqualified)
    partial = partial_refusal(plan)
    if partial is not None and not args.accept_partial:
        raise UsageError(partial)
    try:
        token = issue_token(
            plan,
            params.run(args.run),
            root=Path(params.ledger_root),
            ledger_root=params.ledger_root,
        )
    except (SpendRefused, LedgerBindingError) as exc:
        raise UsageError(str(exc)) from None
    write_authorization(Path(args.params), args.run, plan.hash, token)
    print(
        f"authorized {args.run}: plan {plan.hash}, {plan.budget.admission_text()}, worst case "
        f"${plan.budget.worst_case_usd:.2f}; its ledger is {params.ledger_root}/{args.run}/ "
        "(keep it: a clone or `git clean` cannot spend this authorization). Run "
        f"`{repro_command(plan.model.api_key_env)}`."
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
    auth.add_argument(
        "--accept-partial",
        action="store_true",
        help="authorize even when the ceiling admits fewer requests than the plan has",
    )
    auth.add_argument("--params", default="params.yaml", help="the params file to edit")
    auth.set_defaults(handler=_authorize)

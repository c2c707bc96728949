"""Pipeline commands: ``assay plan show``, ``assay authorize``, ``assay sql``, ``assay run add``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assay.cli import UsageError
from assay.params import ParamsError, load_params
from assay.plan import summary


def _plan_show(args: argparse.Namespace) -> int:
    from assay.pipeline.plan import make_plan

    try:
        plan = make_plan(args.run, load_params(args.params))
    except (ParamsError, FileNotFoundError) as exc:
        raise UsageError(
            f"{exc} (run `dvc repro` for the subjects and render stages first)"
        ) from None
    print(summary(plan))
    return 0


def _authorize(args: argparse.Namespace) -> int:
    from assay.authorize import SpendRefused, issue_token, partial_refusal
    from assay.ledger import LedgerBindingError
    from assay.params_edit import write_authorization
    from assay.pipeline.plan import make_plan

    try:
        params = load_params(args.params)
        plan = make_plan(args.run, params)
    except (ParamsError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    if args.plan_hash != plan.hash:
        raise UsageError(
            f"plan hash {args.plan_hash} is not the current plan of {args.run} ({plan.hash}); "
            f"inspect it with `assay plan show {args.run}`"
        )
    if not plan.budget.paid:
        print(f"{args.run} is free: no authorization needed")
        return 0
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
        "(keep it: a clone or `git clean` cannot spend this authorization). Run `dvc repro`."
    )
    return 0


def _sql(args: argparse.Namespace) -> int:
    import duckdb

    from assay.report.database import connect

    try:
        con = connect(Path(args.data))
        cursor = con.execute(args.query)
    except (FileNotFoundError, duckdb.Error) as exc:
        raise UsageError(str(exc)) from None
    if cursor.description is None:
        return 0
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    if args.format == "csv":
        import csv

        writer = csv.writer(sys.stdout)
        writer.writerow(names)
        writer.writerows(rows)
    else:
        widths = [
            max(len(str(n)), *(len(str(r[i])) for r in rows)) if rows else len(n)
            for i, n in enumerate(names)
        ]
        print("  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)))
        for row in rows:
            print("  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)))
    return 0


def _run_add(args: argparse.Namespace) -> int:
    from assay.params_edit import add_run

    try:
        add_run(
            Path(args.params),
            args.run,
            model=args.model,
            scenario=args.scenario,
            repeats=args.repeats,
            schedule=args.schedule,
        )
    except (ParamsError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    print(f"added run {args.run}; `dvc repro` runs it")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    plan = subparsers.add_parser("plan", help="inspect a run's plan")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True)
    show = plan_sub.add_parser("show", help="cells, worst-case cost and plan hash of a run")
    show.add_argument("run")
    show.add_argument("--params", default="params.yaml")
    show.set_defaults(handler=_plan_show)

    auth = subparsers.add_parser("authorize", help="approve a paid run's plan hash in params.yaml")
    auth.add_argument("run")
    auth.add_argument(
        "--plan-hash", required=True, help="the hash you inspected with `assay plan show`"
    )
    auth.add_argument(
        "--accept-partial",
        action="store_true",
        help="authorize even when the ceiling admits fewer requests than the plan has",
    )
    auth.add_argument("--params", default="params.yaml")
    auth.set_defaults(handler=_authorize)

    sql = subparsers.add_parser("sql", help="query every table of every run with DuckDB")
    sql.add_argument("query")
    sql.add_argument("--data", default="data")
    sql.add_argument("--format", choices=("table", "csv"), default="table")
    sql.set_defaults(handler=_sql)

    run = subparsers.add_parser("run", help="declare runs in params.yaml")
    run_sub = run.add_subparsers(dest="run_command", required=True)
    add = run_sub.add_parser("add", help="declare a run")
    add.add_argument("run")
    add.add_argument("--model", required=True)
    add.add_argument("--scenario", required=True)
    add.add_argument("--repeats", type=int, default=2)
    add.add_argument("--schedule", default=None)
    add.add_argument("--params", default="params.yaml")
    add.set_defaults(handler=_run_add)

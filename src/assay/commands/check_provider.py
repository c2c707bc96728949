"""``assay check-provider RUN``: free pre-flight checks of the run's model and provider."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from assay.commands import UsageError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check-provider",
        help="check a run's model, pinned provider, prices, context and credit (free calls only)",
    )
    parser.add_argument("run", help="a key of params.yaml: runs")
    parser.add_argument("--params", type=Path, default=Path("params.yaml"), help="the params file")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params
    from assay.providers.check import run_checks

    try:
        profile = load_params(args.params).profile_for(args.run)
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    report = run_checks(profile, os.environ)
    print(report.render())
    verdict = "all checks pass" if report.passed else "checks failed: nothing may be spent"
    print(f"{args.run}: {profile.provider} {profile.model}: {verdict}")
    return 0 if report.passed else 1

"""``assay sign-test``: the exact two-sided paired sign test for given direction counts."""

from __future__ import annotations

import argparse
import json

from assay.commands import UsageError

DEFAULT_ALPHA = 0.05
"""The preregistered alpha (``assay.science.stats.ALPHA``; a test keeps the two equal)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "sign-test",
        help="exact two-sided sign test over non-tied pairs",
        description="Print JSON: positive, negative, n, alpha, p_value, significant.",
    )
    parser.add_argument("positive", type=int, metavar="POS", help="pairs favouring one arm")
    parser.add_argument("negative", type=int, metavar="NEG", help="pairs favouring the other")
    parser.add_argument(
        "--alpha", type=float, default=DEFAULT_ALPHA, help=f"default {DEFAULT_ALPHA}"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay.science.stats import sign_test

    try:
        result = sign_test(args.positive, args.negative, alpha=args.alpha)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps(result.model_dump(mode="json"), sort_keys=True))
    return 0

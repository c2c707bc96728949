"""``assay power``: the exact power of paired-v2 for a design, and the subjects a target needs."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from assay.commands import UsageError, add_described, print_table

if TYPE_CHECKING:
    from pydantic import BaseModel

    from assay.config.params import PowerAssumptions
    from assay.science.power import PowerResult, SampleSize

DEFAULT_SUBJECTS = (12, 24, 36)
DEFAULT_ALPHA = 0.05
"""The preregistered alpha and minimum inference set (``assay.science.stats``; a test keeps
them equal)."""
DEFAULT_MINIMUM = 10
DEFAULT_BOUND = 200
"""``assay.science.power.SEARCH_BOUND`` (a test keeps them equal)."""

DESCRIPTION = """\
The exact probability that paired-v2 declares significance (exact two-sided sign test over the
non-tied complete subjects, p < alpha, at least --minimum complete subjects) when each subject is
complete with probability C independently, and each complete subject favours the reference arm
with probability F, the other arm with probability A, and ties otherwise.

  assay power --subjects 12 --complete 0.75 --favour 0.8 --against 0 --json
  assay power                       # the table for 12, 24 and 36 subjects at params.yaml's
                                    # power: completeness and alternatives
  assay power --target 0.8          # the subjects each stated alternative needs

Without --favour and --against, the alternatives params.yaml states (power.alternatives); without
--complete, its power.completeness. --target gives the fewest subjects whose power reaches it
and, since the sign test's power zig-zags with the number of subjects, the fewest from which
every number up to --bound does. --json prints one JSON object per line: {"power": ...} with the
inputs echoed (and "alternative" when it is a named one), or the sample size.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_described(
        subparsers,
        "power",
        "exact power of paired-v2, and the subjects a target needs",
        DESCRIPTION,
    )
    parser.add_argument(
        "--subjects",
        type=int,
        nargs="+",
        metavar="N",
        help=f"numbers of subjects (default: {' '.join(map(str, DEFAULT_SUBJECTS))})",
    )
    parser.add_argument("--complete", type=float, metavar="C", help="P(a subject is complete)")
    parser.add_argument("--favour", type=float, metavar="F", help="P(favours the reference arm)")
    parser.add_argument("--against", type=float, metavar="A", help="P(favours the other arm)")
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help="default 0.05")
    parser.add_argument(
        "--minimum",
        type=int,
        default=DEFAULT_MINIMUM,
        help="the minimum inference set: complete subjects below which nothing is significant "
        "(default 10)",
    )
    parser.add_argument("--target", type=float, metavar="P", help="the power to reach")
    parser.add_argument(
        "--bound", type=int, default=DEFAULT_BOUND, help="--target looks up to this many subjects"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument(
        "--params", default="params.yaml", help="where the stated completeness and alternatives are"
    )
    parser.set_defaults(handler=run)


def _stated(path: str) -> PowerAssumptions:
    from assay.config.params import ParamsError, load_params

    try:
        return load_params(path).power
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None


def _assumptions(args: argparse.Namespace) -> tuple[float, dict[str, tuple[float, float]]]:
    """The completeness and the alternatives (name → favour, against; the name is empty for
    the one given on the command line) asked about."""
    if (args.favour is None) != (args.against is None):
        raise UsageError("give both --favour and --against, or neither (params.yaml's)")
    given = {"": (args.favour, args.against)} if args.favour is not None else None
    if args.complete is not None and given is not None:
        return args.complete, given
    stated = _stated(args.params)
    complete = args.complete if args.complete is not None else stated.completeness
    return complete, given or {
        name: (alternative.favour, alternative.against)
        for name, alternative in stated.alternatives.items()
    }


def _label(name: str, favour: float, against: float) -> str:
    given = f"F {favour:g}, A {against:g}"
    return f"{name} ({given})" if name else given


def _json_line(name: str, result: BaseModel) -> str:
    named = {"alternative": name} if name else {}
    return json.dumps({**named, **result.model_dump(mode="json")}, sort_keys=True)


def _needed_line(name: str, found: SampleSize) -> str:
    label = _label(name, found.favour, found.against)
    if found.smallest is None:
        return f"{label}: power {found.target:g} is not reached up to {found.bound} subjects"
    if found.steady == found.smallest:
        return (
            f"{label}: {found.smallest} subjects (power {found.smallest_power:.3f}); every number "
            f"from {found.steady} to {found.bound} reaches {found.target:g}"
        )
    after = (
        f"every number from {found.steady} to {found.bound} reaches it"
        if found.steady is not None
        else f"{found.bound} falls short"
    )
    return (
        f"{label}: {found.smallest} subjects first reach {found.target:g} (power "
        f"{found.smallest_power:.3f}), but some larger numbers fall short; {after}"
    )


def _table(
    args: argparse.Namespace,
    alternatives: dict[str, tuple[float, float]],
    results: dict[str, list[PowerResult]],
) -> None:
    first = next(iter(results.values()))
    columns = ["subjects", f"P(>= {args.minimum} complete)"]
    columns += [_label(name, *alternatives[name]) for name in results]
    rows = [
        [str(result.subjects), f"{result.enough_complete:.3f}"]
        + [f"{results[name][i].power:.3f}" for name in results]
        for i, result in enumerate(first)
    ]
    print_table(columns, rows)


def run(args: argparse.Namespace) -> int:
    from assay.science.power import power_curve, subjects_needed

    if args.target is not None and args.subjects is not None:
        raise UsageError("give --subjects or --target, not both")
    complete, alternatives = _assumptions(args)
    options = {"alpha": args.alpha, "minimum_subjects": args.minimum}
    try:
        if args.target is not None:
            needed = {
                name: subjects_needed(
                    args.target, complete, favour, against, bound=args.bound, **options
                )
                for name, (favour, against) in alternatives.items()
            }
        else:
            subjects = args.subjects or DEFAULT_SUBJECTS
            curves = {
                name: power_curve(complete, favour, against, **options)
                for name, (favour, against) in alternatives.items()
            }
            results = {name: [curve.at(n) for n in subjects] for name, curve in curves.items()}
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        found = needed.items() if args.target is not None else results.items()
        for name, value in found:
            for result in value if isinstance(value, list) else [value]:
                print(_json_line(name, result))
        return 0
    print(
        f"paired-v2: alpha {args.alpha:g}, at least {args.minimum} complete subjects, each "
        f"subject complete with probability {complete:g}"
    )
    if args.target is not None:
        for name, sample in needed.items():
            print(_needed_line(name, sample))
    else:
        _table(args, alternatives, results)
    return 0

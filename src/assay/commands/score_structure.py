"""``assay score-structure``: the structural verdict of candidate files, one JSON line each."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from assay.commands import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "score-structure",
        help="score candidate sources with the structural evaluator",
        description="Print one JSON object per FILE: file, verdict, reason, evaluator_version.",
    )
    parser.add_argument("--helper", required=True, help="the repository helper's name")
    parser.add_argument(
        "--helper-module",
        default=None,
        help="module candidates may import the helper from (omit: the target file defines it)",
    )
    parser.add_argument(
        "--primitive",
        action="append",
        default=[],
        metavar="P",
        help="a primitive the helper uses, as a dotted name (repeatable)",
    )
    parser.add_argument(
        "--evaluator-version",
        type=int,
        default=None,
        metavar="N",
        help="a version of src/assay/structure/versions.py (default: 7, the preregistered one)",
    )
    parser.add_argument(
        "files", nargs="+", metavar="FILE", type=Path, help="Python source defining `implement`"
    )
    parser.set_defaults(handler=run)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    from assay.structure import DEFAULT_VERSION, EVALUATOR_VERSIONS, score
    from assay.structure.calls import parse_primitive

    if args.evaluator_version is None:
        args.evaluator_version = DEFAULT_VERSION
    if args.evaluator_version not in EVALUATOR_VERSIONS:
        known = ", ".join(str(n) for n in sorted(EVALUATOR_VERSIONS))
        raise UsageError(f"unknown evaluator version {args.evaluator_version} (known: {known})")
    if not args.helper.isidentifier():
        raise UsageError(f"--helper {args.helper!r} is not a Python identifier")
    for primitive in args.primitive:
        try:
            parse_primitive(primitive)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    sources = [(path, _read(path)) for path in args.files]
    for path, source in sources:
        result = score(
            source,
            helper=args.helper,
            helper_module=args.helper_module,
            primitives=args.primitive,
            version=args.evaluator_version,
        )
        print(json.dumps({"file": str(path), **result.model_dump(mode="json")}), flush=True)
    return 0

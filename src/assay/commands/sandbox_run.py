"""``assay sandbox-run``: try one candidate against a repository in the hardened sandbox.

The candidate is appended to the target file as the pipeline does; each element of
CASES.json is the single argument of ``implement``; EXPECTED.json holds the expected values
(compared on the host only). The last line printed is one JSON object with ``status``,
``reason`` and per-case outcomes. Exit 0 whatever the status; 2 on bad arguments.

An image the image stage recorded (the default, or an ``--image`` equal to a recorded id) is
loaded from its archive (data/image/<kind>.tar) when the engine lacks it, as the selftest and
correctness stages do.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from assay.commands import UsageError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sandbox-run", help="run one candidate in the correctness sandbox", description=__doc__
    )
    parser.add_argument("--repo", type=Path, required=True, help="repository folder")
    parser.add_argument(
        "--target", required=True, help="repository path the candidate is appended to"
    )
    parser.add_argument(
        "--candidate", type=Path, required=True, help="file holding the candidate source"
    )
    parser.add_argument("--cases", type=Path, required=True, help="JSON list of inputs")
    parser.add_argument("--expected", type=Path, required=True, help="JSON list of expected values")
    parser.add_argument(
        "--profile",
        choices=("standard", "large"),
        default="standard",
        help="resource profile: standard (1 MiB /tmp, 5 s) or large (4 MiB /tmp, 15 s)",
    )
    parser.add_argument(
        "--image",
        help="image id (sha256:…); default: the standard image recorded under data/image/ "
        "(`dvc repro pipeline/image/dvc.yaml`); a recorded image the engine lacks is loaded "
        "from data/image/<kind>.tar",
    )
    parser.set_defaults(handler=run)


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {what} {path}: {exc}") from None


def _read_json_list(path: Path, what: str) -> list[Any]:
    try:
        value = json.loads(_read_text(path, what))
    except ValueError as exc:
        raise UsageError(f"{what} {path} is not JSON: {exc}") from None
    if not isinstance(value, list):
        raise UsageError(f"{what} {path} must hold a JSON list")
    return value


def _repository(root: Path) -> tuple[Any, ...]:
    from pydantic import ValidationError

    from assay.fixtures.model import SourceFile

    if not root.is_dir():
        raise UsageError(f"--repo {root} is not a directory")
    files = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if any(
            part.startswith(".") or part == "__pycache__" for part in path.relative_to(root).parts
        ):
            continue
        files.append((relative, _read_text(path, "repository file")))
    try:
        return tuple(SourceFile(path=relative, text=text) for relative, text in files)
    except ValidationError as exc:
        raise UsageError(f"unusable repository file name: {exc.errors()[0]['msg']}") from None


def _image(args: argparse.Namespace) -> tuple[str, str | None]:
    """The image id to run in, and the kind of the image stage's record that pins it (whose
    archive restores it), if any."""
    from typing import get_args

    from assay import evidence

    if args.image:
        image = str(args.image)
        for kind in get_args(evidence.ImageKind):
            record = evidence.load_image_record(evidence.image_record(kind))
            if record is not None and record.image_id == image:
                return image, kind
        return image, None
    record_path = evidence.image_record("standard")
    record = evidence.load_image_record(record_path)
    if record is None:
        raise UsageError(f"no --image and no image record at {record_path}")
    return record.image_id, "standard"


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from assay.pipeline.image import load_pinned
    from assay.sandbox.results import SandboxRequest
    from assay.sandbox.runner import SandboxCancelled, evaluate

    files = _repository(args.repo)
    cases = _read_json_list(args.cases, "--cases")
    expected = _read_json_list(args.expected, "--expected")
    if len(cases) != len(expected):
        raise UsageError(f"{len(cases)} cases but {len(expected)} expected values")
    if args.target not in {source.path for source in files}:
        raise UsageError(f"--target {args.target} is not a .py file of --repo {args.repo}")
    image, kind = _image(args)
    try:
        request = SandboxRequest(
            files=files,
            target=args.target,
            candidate=_read_text(args.candidate, "--candidate"),
            cases=tuple(cases),
            expected=tuple(expected),
            profile=args.profile,
            image=image,
        )
    except ValidationError as exc:
        raise UsageError(f"invalid request: {exc.errors()[0]['msg']}") from None
    if kind is not None:
        load_pinned(image, kind)
    try:
        result = evaluate(request)
    except SandboxCancelled as cancelled:
        return 128 + cancelled.signum
    print(json.dumps(result.model_dump(mode="json"), sort_keys=True))
    return 0

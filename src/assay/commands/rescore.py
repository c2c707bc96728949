"""``assay rescore RUN --structure-version V``: score a run's reports with another structural
evaluator version, offline, and print which verdicts it changes.

Records the choice in ``params.yaml`` (``evaluators.structure_runs``) and reproduces only the
``code`` and ``params`` stages (which write the digests and the section the others read), the
``structure`` stage of that run and the ``report`` stage (``dvc repro --single-item``), so no
provider is called and ``execute`` never runs. Every version is scored side by side anyway; the
verdict diff against the preregistered version is ``data/report/rescore/RUN.md``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from assay.commands import UsageError, add_data_argument


def _rescore(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params
    from assay.config.params_edit import write_structure_version

    params_path = Path(args.params)
    try:
        params = load_params(params_path)
        params.run(args.run)
        write_structure_version(params_path, args.run, args.structure_version)
    except (ParamsError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    print(f"{args.run}: reports now score with structural evaluator v{args.structure_version}")
    from assay.pipeline.layout import address

    structure = address("structure", args.run)
    if args.no_repro:
        print(f"run `dvc repro -s code params {structure} report` to rescore (execute never runs)")
        return 0
    # code and params first: they write the digest and the section the structure stage reads
    command = [
        *(sys.executable, "-m", "dvc", "repro", "--single-item"),
        *("code", "params", structure, "report"),
    ]
    if subprocess.run(command, check=False).returncode != 0:
        raise UsageError(
            f"`{' '.join(command[2:])}` failed; the run needs its candidates (`dvc repro` first)"
        )
    from assay.evidence.paths import report_dir
    from assay.report.rescore import RescoreReport, headlines

    diff = report_dir(Path(args.data)) / "rescore" / f"{args.run}.json"

    for line in headlines(RescoreReport.model_validate_json(diff.read_bytes())):
        print(line)
    print(f"every changed cell: {diff.with_suffix('.md')}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rescore",
        help="rescore a run with another structural evaluator version (never re-executes)",
    )
    parser.add_argument("run", help="the run to rescore (a key of params.yaml: runs)")
    parser.add_argument(
        "--structure-version",
        type=int,
        required=True,
        metavar="V",
        help="the structural evaluator version its reports score with",
    )
    parser.add_argument("--params", default="params.yaml", help="default: params.yaml")
    add_data_argument(parser, "the data folder")
    parser.add_argument(
        "--no-repro", action="store_true", help="only record the version in params.yaml"
    )
    parser.set_defaults(handler=_rescore)

"""``assay adjudicate``: record a human decision on an ambiguous cell, or list the cells.

``assay adjudicate RUN`` lists the cells the run's preregistered evaluator version scores
``ambiguous`` and any decision already recorded. ``assay adjudicate RUN CELL_ID --verdict V
--rationale TEXT --by NAME`` appends a decision to the adjudication file, checked first: the
cell must exist and be ambiguous, and no other decision may name it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
from pathlib import Path
from typing import Any

from assay.commands import UsageError, add_data_argument


def _ambiguous(data: Path, run: str) -> tuple[int, dict[tuple[str, int], str | None], list[Any]]:
    import pyarrow.parquet as pq

    from assay import evidence

    plan = evidence.plan_file(run, data)
    versions = evidence.VERDICT_VERSIONS.path(run, data)
    if not plan.exists() or not versions.exists():
        raise UsageError(f"no plan or verdicts for run {run!r} under {data}; run `dvc repro` first")
    version = json.loads(plan.read_text(encoding="utf-8"))["analysis"]["structure_evaluator"]
    rows = [r for r in pq.read_table(versions).to_pylist() if r["evaluator_version"] == version]
    return version, {(r["cell_id"], r["step"]): r["verdict"] for r in rows}, rows


def _append(path: Path, entry: dict[str, Any]) -> None:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedSeq

    yaml = YAML()
    document = yaml.load(path.read_text(encoding="utf-8")) if path.exists() else None
    if document is None:
        document = CommentedSeq()
    document.fa.set_block_style()
    document.append(entry)
    buffer = io.StringIO()
    yaml.dump(document, buffer)
    candidate = path.with_suffix(".yaml.tmp")
    candidate.write_text(buffer.getvalue(), encoding="utf-8")
    os.replace(candidate, path)


def _adjudicate(args: argparse.Namespace) -> int:
    from assay.adjudication import AdjudicationError, load_adjudications, resolve

    path, data = Path(args.file), Path(args.data)
    version, verdicts, rows = _ambiguous(data, args.run)
    try:
        entries = load_adjudications(path)
    except AdjudicationError as exc:
        raise UsageError(str(exc)) from None
    if args.cell_id is None:
        decided = {(e.cell_id, e.step): e for e in entries if e.run == args.run}
        ambiguous = [r for r in rows if r["verdict"] == "ambiguous"]
        print(f"{args.run}: {len(ambiguous)} ambiguous cells under the preregistered v{version}")
        for r in ambiguous:
            entry = decided.get((r["cell_id"], r["step"]))
            status = f"adjudicated {entry.verdict} by {entry.adjudicator}" if entry else "open"
            print(f"  {r['cell_id']} step {r['step']} ({r['reason']}): {status}")
        return 0
    if not (args.verdict and args.rationale and args.by):
        raise UsageError("a decision needs --verdict, --rationale and --by")
    decision = {"run": args.run, "cell_id": args.cell_id, "step": args.step,
                "verdict": args.verdict, "rationale": args.rationale, "adjudicator": args.by}  # fmt: skip
    from assay.adjudication import Adjudication

    try:
        checked = (*entries, Adjudication.model_validate(decision))
        keys = [(e.run, e.cell_id, e.step) for e in checked]
        if len(set(keys)) != len(keys):
            raise AdjudicationError(f"cell {args.cell_id} step {args.step} is already adjudicated")
        resolve(checked, args.run, verdicts, version, path)
    except (AdjudicationError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    _append(path, decision)
    print(f"{args.run} {args.cell_id} step {args.step}: ambiguous → {args.verdict} ({path}); "
          "`dvc repro` shows the result with and without adjudication")  # fmt: skip
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "adjudicate", help="resolve an ambiguous cell by a human decision, or list them"
    )
    parser.add_argument("run", help="the run whose cell is decided")
    parser.add_argument(
        "cell_id", nargs="?", default=None, help="the ambiguous cell (omit to list them)"
    )
    parser.add_argument("--step", type=int, default=1, help="the chain step (default: 1)")
    parser.add_argument(
        "--verdict", choices=("reused", "mixed", "duplicated"), help="what the cell resolves to"
    )
    parser.add_argument("--rationale", help="why, in one sentence")
    parser.add_argument("--by", help="who decided")
    parser.add_argument("--file", default="adjudications.yaml", help="default: adjudications.yaml")
    add_data_argument(parser, "the data folder")
    parser.set_defaults(handler=_adjudicate)

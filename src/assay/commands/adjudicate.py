"""``assay adjudicate``: blind human decisions on ambiguous cells.

``assay adjudicate`` lists the cells every run's preregistered evaluator version scores
``ambiguous``, each by an opaque id (``assay.science.adjudication.blind_id``) in id order: open cells
show no run, subject or arm; decided ones show their cell and decision. ``assay adjudicate ID``
shows one open cell's candidate, helper and the rule that left it ambiguous (still no run,
subject or arm). ``assay adjudicate ID --verdict V --rationale TEXT --by NAME`` appends the
decision to the adjudication file under the id alone, checked first: the id must name an
ambiguous cell, and no other decision may name it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
from pathlib import Path
from typing import Any

from assay.commands import UsageError, add_data_argument


def _ambiguous(data: Path) -> dict[str, dict[str, Any]]:
    """Every run's cells scored ``ambiguous`` by its preregistered version, by blind id."""
    import pyarrow.parquet as pq

    from assay import evidence
    from assay.science.adjudication import blind_id

    cells: dict[str, dict[str, Any]] = {}
    plans = sorted(data.glob("plan/*/plan.json"))
    if not plans:
        raise UsageError(f"no plans under {data}; run `dvc repro` first")
    for plan in plans:
        run = plan.parent.name
        versions = evidence.VERDICT_VERSIONS.path(run, data)
        if not versions.exists():
            continue
        planned = json.loads(plan.read_text(encoding="utf-8"))
        version = planned["analysis"]["structure_evaluator"]
        for row in pq.read_table(versions).to_pylist():
            if row["evaluator_version"] == version and row["verdict"] == "ambiguous":
                cell_id = blind_id(run, row["cell_id"], row["step"])
                cells[cell_id] = {**row, "version": version, "scenario": planned["scenario"]}
    return dict(sorted(cells.items()))


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


def _decision(entries: tuple[Any, ...], row: dict[str, Any]) -> Any:
    return next((e for e in entries if e.names(row["run"], row["cell_id"], row["step"])), None)


def _list(cells: dict[str, dict[str, Any]], entries: tuple[Any, ...]) -> None:
    print(f"{len(cells)} ambiguous cells under each run's preregistered evaluator version")
    for blind, row in cells.items():
        entry = _decision(entries, row)
        if entry is None:
            print(f"  {blind}: open ({row['reason']})")
        else:
            print(f"  {blind}: adjudicated {entry.verdict} by {entry.adjudicator}: "
                  f"{row['run']} {row['cell_id']} step {row['step']} (arm {row['arm']})")  # fmt: skip


def _show(data: Path, blind: str, row: dict[str, Any]) -> None:
    """The candidate and what scored it, without run, subject or arm."""
    import pyarrow.parquet as pq

    from assay import evidence
    from assay.structure.explain import RULE_TEXT

    table = evidence.CANDIDATES.path(row["run"], data)
    candidates = pq.read_table(table).to_pylist() if table.exists() else []
    source = next(
        (c["source"] for c in candidates
         if (c["cell_id"], c["step"]) == (row["cell_id"], row["step"])), None
    )  # fmt: skip
    subjects = evidence.SUBJECTS.path(row["scenario"], data)
    helper = next(
        (f"{s['helper_module']}.{s['helper']}" if s["helper_module"] else s["helper"]
         for s in (pq.read_table(subjects).to_pylist() if subjects.exists() else [])
         if (s["subject"], s["arm"]) == (row["subject"], row["arm"])), "?"
    )  # fmt: skip
    print(f"# {blind}: ambiguous ({row['reason']}) under evaluator v{row['version']}")
    print(f"  the helper to reuse: {helper}")
    if row["rule"]:
        print(f"  decided by: {row['rule']}: {RULE_TEXT.get(row['rule'], '')}")
    print("  helper call lines: " + (", ".join(map(str, row["helper_call_lines"])) or "none"))
    print("  primitive calls: " + (", ".join(
        f"{name} line {line}" for name, line in
        zip(row["primitive_calls"], row["primitive_call_lines"], strict=False)) or "none"))  # fmt: skip
    print("## Candidate" + ("" if source is not None else ": none stored"))
    for number, line in enumerate((source or "").splitlines(), start=1):
        print(f"  {number:>3} | {line}")


def _adjudicate(args: argparse.Namespace) -> int:
    from assay.science.adjudication import (
        Adjudication,
        AdjudicationError,
        load_adjudications,
        resolve,
    )

    path, data = Path(args.file), Path(args.data)
    cells = _ambiguous(data)
    try:
        entries = load_adjudications(path)
    except AdjudicationError as exc:
        raise UsageError(str(exc)) from None
    if args.id is None:
        _list(cells, entries)
        return 0
    row = cells.get(args.id)
    if row is None:
        raise UsageError(f"no ambiguous cell {args.id!r} (`assay adjudicate` lists them by id)")
    decided = _decision(entries, row)
    if decided is not None:
        raise UsageError(f"cell {args.id} is already adjudicated ({decided.verdict})")
    if not (args.verdict or args.rationale or args.by):
        _show(data, args.id, row)
        return 0
    if not (args.verdict and args.rationale and args.by):
        raise UsageError("a decision needs --verdict, --rationale and --by")
    decision = {"id": args.id, "verdict": args.verdict, "rationale": args.rationale,
                "adjudicator": args.by}  # fmt: skip
    try:
        checked = (*entries, Adjudication.model_validate(decision))
        verdicts = {(row["cell_id"], row["step"]): row["verdict"]}
        resolve(checked[-1:], row["run"], verdicts, row["version"], path)
    except (AdjudicationError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    _append(path, decision)
    print(f"{args.id}: ambiguous → {args.verdict} ({path}); it was {row['run']} "
          f"{row['cell_id']} step {row['step']} (arm {row['arm']}). `dvc repro` shows the "
          "result with and without adjudication")  # fmt: skip
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "adjudicate",
        help="blind: list the ambiguous cells by opaque id, show one, or record a decision",
    )
    parser.add_argument(
        "id", nargs="?", default=None, help="an ambiguous cell's id (omit to list them)"
    )
    parser.add_argument(
        "--verdict", choices=("reused", "mixed", "duplicated"), help="what the cell resolves to"
    )
    parser.add_argument("--rationale", help="why, in one sentence")
    parser.add_argument("--by", help="who decided")
    parser.add_argument("--file", default="adjudications.yaml", help="default: adjudications.yaml")
    add_data_argument(parser, "the data folder")
    parser.set_defaults(handler=_adjudicate)

"""``measure`` on a stored run: candidates + scenario in, long-form Parquet out.

Only outputs that are code and passed the source gate are changes to measure; the others get
no rows (they are missing evidence in the other tables already). No provider and no sandbox are
involved, so metrics can be recomputed on any stored or replayed run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import ValidationError

from assay.fixtures.model import Scenario
from assay.gate import check_source
from assay.metrics.engine import measure
from assay.metrics.records import ROW_COLUMNS, MeasureItem, MetricRow

SUBJECT_COLUMNS = ("subject_id", "subject")
"""The subject column's name: ``subject_id`` in the stage layout, ``subject`` in the extract table."""

ROW_SCHEMA = pa.schema(
    [
        ("cell_id", pa.string()),
        ("tool", pa.string()),
        ("tool_version", pa.string()),
        ("metric", pa.string()),
        ("before", pa.float64()),
        ("after", pa.float64()),
        ("delta", pa.float64()),
        ("missing_reason", pa.string()),
    ]
)


class MeasureInputError(ValueError):
    """The candidates table or the scenario cannot be read or does not fit together."""


def load_scenario_json(path: Path) -> Scenario:
    try:
        return Scenario.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise MeasureInputError(f"cannot read scenario {path}: {exc.strerror}") from None
    except ValidationError as exc:
        raise MeasureInputError(f"{path} is not a scenario: {exc.errors()[0]['msg']}") from None


def load_items(candidates_path: Path, scenario: Scenario) -> list[MeasureItem]:
    """Every gate-accepted code output of the run as a change to its arm's repository.

    A table without a ``gate_accepted`` column is gated here with :func:`assay.gate.check_source`.
    Only a chain's first step is a change to the arm's repository as declared; later steps build
    on the model's own earlier outputs and are not measured.
    """
    try:
        table = pq.read_table(candidates_path)
    except (OSError, pa.ArrowException) as exc:
        raise MeasureInputError(f"cannot read candidates {candidates_path}: {exc}") from None
    subject_column = next((c for c in SUBJECT_COLUMNS if c in table.column_names), None)
    required = {"cell_id", "arm", "extract_status", "source"}
    if subject_column is None or not required <= set(table.column_names):
        raise MeasureInputError(
            f"{candidates_path} lacks columns: need cell_id, subject_id (or subject), arm, "
            f"extract_status, source; has {', '.join(table.column_names)}"
        )
    items: list[MeasureItem] = []
    for row in table.to_pylist():
        if row["extract_status"] != "code" or row["source"] is None or (row.get("step") or 1) > 1:
            continue
        try:
            subject = scenario.subject(row[subject_column])
            arm = subject.arm(row["arm"])
        except KeyError as exc:
            raise MeasureInputError(f"cell {row['cell_id']}: {exc.args[0]}") from None
        accepted = row.get("gate_accepted")
        if accepted is None:
            task = subject.task
            accepted = check_source(
                row["source"], helper=task.helper, helper_module=task.helper_module
            ).accepted
        if not accepted:
            continue
        items.append(
            MeasureItem(
                cell_id=row["cell_id"],
                repo_key=subject.arm_digest(arm.name),
                files=arm.files,
                target=subject.target,
                candidate=row["source"],
            )
        )
    return items


def rows_table(rows: Sequence[MetricRow]) -> pa.Table:
    columns = {name: [getattr(row, name) for row in rows] for name in ROW_COLUMNS}
    return pa.Table.from_pydict(columns, schema=ROW_SCHEMA)


def write_rows(rows: Sequence[MetricRow], out_path: Path) -> None:
    out_path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(rows_table(rows), out_path)


def measure_run(
    candidates_path: Path, scenario_path: Path, out_path: Path, workers: int = 2
) -> int:
    """Measure a stored run and write its rows; returns the exit code (0)."""
    scenario = load_scenario_json(Path(scenario_path))
    items = load_items(Path(candidates_path), scenario)
    write_rows(measure(items, workers=workers), Path(out_path))
    return 0

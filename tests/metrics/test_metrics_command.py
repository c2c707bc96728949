"""``assay measure`` on a stored run: candidates.parquet + scenario.json -> long-form Parquet."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.cli import main
from assay.core.tables import write_records
from assay.evidence import CandidateRow, MetricRow, read_rows
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import load_scenario
from assay.metrics import METRICS
from assay.pipeline.measure import load_items

pytestmark = pytest.mark.process  # the metric tools run as processes (mypy, jscpd on Node.js)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture()
def stored_run(tmp_path: Path) -> tuple[Path, Path, Scenario]:
    full = load_scenario("v1", FIXTURES)
    scenario = full.model_copy(update={"subjects": full.subjects[:2]})
    scenario_path = tmp_path / "scenario.json"
    scenario_path.write_text(scenario.model_dump_json(), encoding="utf-8")
    first, second = scenario.subjects
    rows = [
        ("c1", first.id, "clean", "code", first.task.references.reused),
        ("c2", second.id, "inconsistent", "code", second.task.references.duplicated),
        ("c3", first.id, "inconsistent", "no-code", None),
        ("c4", first.id, "clean", "not-executed", None),
        ("c5", second.id, "clean", "code", "import os\nos.system('x')\n"),
    ]
    candidates_path = tmp_path / "candidates.parquet"
    write_records(
        candidates_path,
        CandidateRow,
        [
            CandidateRow(
                run="r1",
                cell_id=c,
                subject=s,
                arm=a,
                repeat=1,
                step=1,
                execution_status="completed" if e != "not-executed" else "budget-halted",
                extract_status=e,
                source=src,
                extraction_version=2,
            )
            for c, s, a, e, src in rows
        ],
    )
    return candidates_path, scenario_path, scenario


def test_measure_command_writes_rows_for_gate_accepted_code_only(
    stored_run: tuple[Path, Path, Scenario], tmp_path: Path
) -> None:
    candidates, scenario, _ = stored_run
    out = tmp_path / "out" / "metrics.parquet"
    code = main(
        [
            "measure",
            "--candidates",
            str(candidates),
            "--scenario",
            str(scenario),
            "--out",
            str(out),
            "--workers",
            "1",
        ]
    )
    assert code == 0
    table = pq.read_table(out)
    assert tuple(table.column_names) == tuple(MetricRow.model_fields)
    assert table.schema.field("delta").type == pa.float64()
    rows = table.to_pylist()
    assert sorted({r["cell_id"] for r in rows}) == ["c1", "c2"]
    assert len(rows) == 2 * len(METRICS)
    assert all(r["missing_reason"] is None for r in rows)
    new_lines = {r["cell_id"]: r["delta"] for r in rows if r["metric"] == "new_lines"}
    assert new_lines["c1"] == 2.0  # def + return of the reusing reference
    assert new_lines["c2"] > new_lines["c1"]


def test_unknown_subject_is_a_usage_error(
    stored_run: tuple[Path, Path, Scenario], tmp_path: Path
) -> None:
    candidates, scenario, _ = stored_run
    table = pq.read_table(candidates).to_pylist()
    table[0]["subject"] = "no-such-subject"
    pq.write_table(pa.Table.from_pylist(table), candidates)
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "measure",
                "--candidates",
                str(candidates),
                "--scenario",
                str(scenario),
                "--out",
                str(tmp_path / "o.parquet"),
            ]
        )
    assert exit_info.value.code == 2


def test_unreadable_scenario_is_a_usage_error(
    stored_run: tuple[Path, Path, Scenario], tmp_path: Path
) -> None:
    candidates, _, _ = stored_run
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "measure",
                "--candidates",
                str(candidates),
                "--scenario",
                str(tmp_path / "missing.json"),
                "--out",
                str(tmp_path / "o.parquet"),
            ]
        )
    assert exit_info.value.code == 2


def test_candidates_are_gated_here(stored_run: tuple[Path, Path, Scenario]) -> None:
    """The extract stage's rows carry no gate decision: the measure stage gates them."""
    candidates, _, scenario = stored_run
    items = load_items(read_rows(candidates, CandidateRow), scenario)
    # c5 is code but refused by the gate (a module-level statement); c3 and c4 are not code
    assert [item.cell_id for item in items] == ["c1", "c2"]
    assert items[0].repo_key == scenario.subjects[0].arm_digest("clean")

"""pipeline.correctness.correctness_rows: skipped, missing, gate-refused and sandboxed cells, one row each, in order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, RIGHT, WRONG

from assay.core.tables import read_records, write_records
from assay.evidence import CorrectnessRow
from assay.fixtures.model import Arm, References, Scenario, Subject, Task, Vector
from assay.pipeline.correctness import correctness_rows


@dataclass(frozen=True)
class Candidate:
    arm: str
    source: str | None
    execution_status: str = "completed"
    extract_status: str = "code"
    run: str = "r1"
    subject: str = "double-plus"
    repeat: int = 0
    step: int = 1

    @property
    def cell_id(self) -> str:
        return f"{self.arm}-{self.source!r:.20}"


def scenario(inconsistent_profile: str) -> Scenario:
    task = Task(
        id="double-plus",
        family="cosmetic",
        instruction="Return double the value plus one.",
        helper="double",
        helper_module="pkg.helpers",
        primitives=("int.__mul__",),
        vectors=(
            Vector(input=1, expected=3),
            Vector(input=2, expected=5),
            Vector(input=0, expected=1),
        ),
        references=References(reused=RIGHT, duplicated=RIGHT),
    )
    arms = (
        Arm(name="clean", files=CORPUS_FILES),
        Arm(name="inconsistent", files=CORPUS_FILES, sandbox=inconsistent_profile),
    )
    subject = Subject(scenario="test", task=task, target=CORPUS_TARGET, arms=arms)
    return Scenario(
        name="test", prompt_profile="v1", arms=("clean", "inconsistent"), subjects=(subject,)
    )


def test_cells_without_a_sandbox_run_never_start_a_container(tmp_path: Path) -> None:
    candidates = [
        Candidate(arm="inconsistent", source=RIGHT),
        Candidate(arm="clean", source=None, extract_status="no-code"),
        Candidate(
            arm="clean",
            source=None,
            execution_status="budget-halted",
            extract_status="not-executed",
        ),
        Candidate(arm="clean", source="print('hi')\n" + RIGHT),
    ]
    rows = correctness_rows(candidates, scenario("skip"), "sha256:" + "0" * 64, workers=1)
    assert [(r.status, r.reason) for r in rows] == [
        ("skipped", "no-correctness-run"),
        (None, "no-code"),
        (None, "budget-halted"),
        (None, "gate:module-statement"),
    ]
    write_records(tmp_path / "c.parquet", CorrectnessRow, rows)
    assert read_records(tmp_path / "c.parquet", CorrectnessRow) == rows


@pytest.mark.docker
def test_sandboxed_cells_keep_their_order(sandbox_image: str, tmp_path: Path) -> None:
    candidates = [
        Candidate(arm="clean", source=WRONG),
        Candidate(arm="inconsistent", source=RIGHT),
        Candidate(arm="clean", source=None, extract_status="no-code"),
        Candidate(arm="clean", source=RIGHT),
    ]
    rows = correctness_rows(candidates, scenario("standard"), sandbox_image, workers=2)
    assert [(r.arm, r.status) for r in rows] == [
        ("clean", "incorrect"),
        ("inconsistent", "correct"),
        ("clean", None),
        ("clean", "correct"),
    ]
    assert rows[0].case_outcomes == ("wrong-value",) * 3 and rows[0].case_indexes == (0, 1, 2)
    assert rows[1].case_exception_types == (None, None, None)
    write_records(tmp_path / "c.parquet", CorrectnessRow, rows)
    assert read_records(tmp_path / "c.parquet", CorrectnessRow) == rows


@pytest.mark.docker
def test_the_same_source_in_the_same_arm_is_evaluated_once(
    sandbox_image: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.pipeline import correctness as cells

    evaluated: list[int] = []
    real = cells.evaluate_many

    def counting(requests, *, workers, description=None):
        evaluated.append(len(requests))
        return real(requests, workers=workers, description=description)

    monkeypatch.setattr(cells, "evaluate_many", counting)
    candidates = [
        Candidate(arm="clean", source=RIGHT, repeat=0),
        Candidate(arm="inconsistent", source=RIGHT, repeat=0),
        Candidate(arm="clean", source=RIGHT, repeat=1),
        Candidate(arm="clean", source=WRONG, repeat=2),
    ]
    rows = correctness_rows(candidates, scenario("standard"), sandbox_image, workers=2)
    assert evaluated == [3]
    assert [(r.arm, r.repeat, r.status) for r in rows] == [
        ("clean", 0, "correct"),
        ("inconsistent", 0, "correct"),
        ("clean", 1, "correct"),
        ("clean", 2, "incorrect"),
    ]
    assert rows[0].case_outcomes == rows[2].case_outcomes

"""The structure stage scores a chain cell's steps in order and passes each step the verdicts
of the cell's earlier steps (``cases/structure_steps.yaml``): v8 decides a call of the model's
own earlier step by them, v7 reads each answer alone. The rows come back in the given order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.evidence import CandidateRow
from assay.fixtures.chain import build_chain
from assay.pipeline.structure import verdict_rows

TABLE = Path(__file__).parent / "cases" / "structure_steps.yaml"
FIXTURES = Path(__file__).parents[2] / "fixtures"
SCENARIO = build_chain(FIXTURES)
SUBJECT = SCENARIO.subjects[0]


def _source(answer: str) -> str | None:
    if answer == "missing":
        return None
    if answer.startswith("own-step "):
        step = int(answer.split()[1])
        return f"def implement(request):\n    return implement_step_{step}(request)\n"
    return str(getattr(SUBJECT.task.references, answer))


def _rows(answers: list[str]) -> list[CandidateRow]:
    rows = [
        CandidateRow(
            run="r",
            cell_id="cell-1",
            subject=SUBJECT.id,
            arm=SCENARIO.arms[0],
            repeat=1,
            step=step,
            execution_status="completed",
            extract_status="code" if _source(answer) is not None else "no-code",
            source=_source(answer),
            extraction_version=2,
        )
        for step, answer in enumerate(answers, start=1)
    ]
    return rows[::-1]  # the stage must not rely on the rows' order


CELLS = yaml.safe_load(TABLE.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("cell", CELLS, ids=[c["name"] for c in CELLS])
@pytest.mark.parametrize("version", [7, 8])
def test_steps_are_scored_in_order(cell: dict[str, Any], version: int) -> None:
    candidates = _rows(cell["answers"])
    rows = verdict_rows(candidates, SCENARIO, version)
    assert [(r.cell_id, r.step) for r in rows] == [(c.cell_id, c.step) for c in candidates]
    by_step = {r.step: r.verdict for r in rows}
    assert [by_step[step] for step in range(1, 6)] == cell["expect"][version]
    assert verdict_rows(candidates, SCENARIO, version) == rows  # a pure function


def test_cells_do_not_see_each_other() -> None:
    first = _rows(["reused", "own-step 1", "own-step 1", "own-step 1", "own-step 1"])
    other = [
        r.model_copy(update={"cell_id": "cell-2", "source": _source("duplicated")})
        for r in first
        if r.step == 1
    ]
    rows = verdict_rows([*first, *other], SCENARIO, 8)
    assert {r.verdict for r in rows if r.cell_id == "cell-1"} == {"reused"}
    assert [r.verdict for r in rows if r.cell_id == "cell-2"] == ["duplicated"]

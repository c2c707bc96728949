"""The fast path gives the same rows as the naive way (every tool a fresh process) on a sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.fixtures.scenarios import load_scenario
from assay.metrics import MeasureItem, measure
from assay.metrics.engine import plan_units
from assay.metrics.naive import measure_naive

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _sample() -> list[MeasureItem]:
    scenario = load_scenario("v1", FIXTURES)
    subject = scenario.subjects[-1]
    arm = subject.arm(scenario.arms[1])
    duplicated = MeasureItem(
        cell_id="v1-duplicated",
        repo_key=subject.arm_digest(arm.name),
        files=arm.files,
        target=subject.target,
        candidate="import re\n" + subject.task.references.duplicated,
    )
    multi_file = MeasureItem(
        cell_id="multi-file",
        repo_key="multi",
        files={
            "pkg/__init__.py": "",
            "pkg/text.py": "def slug(value: str) -> str:\n    return value.strip().lower().replace(' ', '-')\n",
            "app.py": "from pkg.text import slug\n\n\ndef page(title: str) -> str:\n    return '/' + slug(title)\n",
        },
        target="app.py",
        candidate="def implement(title: str) -> int:\n    return '/' + title.strip().lower().replace(' ', '-')\n",
    )
    return [duplicated, multi_file]


def test_fast_and_naive_rows_are_identical() -> None:
    sample = _sample()
    fast = measure(sample, workers=2)
    naive = measure_naive(sample)
    assert fast == naive
    assert all(row.missing_reason is None for row in fast)
    by_metric = {(r.cell_id, r.tool, r.metric): r for r in fast}
    assert by_metric[("multi-file", "mypy", "errors")].delta == 1.0  # str returned as int


def test_before_is_planned_once_per_repository_key() -> None:
    item = _sample()[0]
    items = [
        item.model_copy(update={"cell_id": f"c{i}", "candidate": item.candidate + "\n" * i})
        for i in range(3)
    ]
    before_units, before_of, after_of = plan_units(items)
    assert len(before_units) == 1 and set(before_of) == {item.repo_key}
    assert len({unit.unit_id for unit in after_of.values() if not isinstance(unit, str)}) == 3


def test_the_same_change_to_the_same_repository_is_measured_once() -> None:
    item = _sample()[0]
    items = [item.model_copy(update={"cell_id": f"c{i}"}) for i in range(3)]
    _, _, after_of = plan_units(items)
    assert len({unit.unit_id for unit in after_of.values() if not isinstance(unit, str)}) == 1
    rows = measure(items, workers=1)
    per_cell = {
        cell: [(r.tool, r.metric, r.after) for r in rows if r.cell_id == cell]
        for cell in ("c0", "c1", "c2")
    }
    assert per_cell["c0"] and per_cell["c0"] == per_cell["c1"] == per_cell["c2"]


def test_one_repository_key_cannot_name_two_repositories() -> None:
    item = _sample()[0]
    other = item.model_copy(update={"cell_id": "other", "target": "elsewhere.py"})
    with pytest.raises(ValueError, match="two different repositories"):
        plan_units([item, other])

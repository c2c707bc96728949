"""The fast path gives the same rows as the naive way (every tool a fresh process) on a sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.fixtures.scenarios import load_scenario
from assay.metrics import MeasureItem, jscpd_tool, measure
from assay.metrics.engine import plan_units
from assay.metrics.naive import measure_naive
from assay.metrics.units import Unit, write_unit

pytestmark = pytest.mark.process  # the metric tools run as processes (mypy, jscpd on Node.js)

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


def _arms_with_references() -> list[MeasureItem]:
    """Both arms of three layered subjects, each changed by both references and by a copy of its
    largest module: one batch in which most files recur unchanged across repositories, with clones."""
    scenario = load_scenario("layered", FIXTURES)
    items = []
    for subject in scenario.subjects[:3]:
        for arm in subject.arms:
            largest = max((f.text for f in arm.files if f.path != subject.target), key=len)
            for kind, code in (
                ("reused", subject.task.references.reused),
                ("duplicated", subject.task.references.duplicated),
                ("copied", largest),  # a clone of a whole module of the repository
            ):
                items.append(
                    MeasureItem(
                        cell_id=f"{subject.id}-{arm.name}-{kind}",
                        repo_key=subject.arm_digest(arm.name),
                        files=arm.files,
                        target=subject.target,
                        candidate="import re\n" + code,
                    )
                )
    return items


def test_the_batch_finds_the_clones_the_jscpd_command_finds(tmp_path: Path) -> None:
    """The batch computes a file's frames once and replays them for every repository holding the
    same content; each repository's clones (files and lines) and figures equal those of one
    ``jscpd`` command run on it alone."""
    before, _, after_of = plan_units(_arms_with_references())
    units = before + [u for u in after_of.values() if isinstance(u, Unit)]
    root = tmp_path / "repos"
    for unit in units:
        write_unit(root, unit)
    batch = jscpd_tool.detect_many(root, [u.unit_id for u in units])
    alone = {}
    for unit in units:
        scratch = tmp_path / "scratch" / unit.unit_id
        scratch.mkdir(parents=True)
        alone[unit.unit_id] = jscpd_tool.detect_cli(root / unit.unit_id, scratch)
    assert all(isinstance(clones, jscpd_tool.Clones) for clones in alone.values())
    in_order = {k: (sorted(c.pairs), c.duplicated_lines) for k, c in batch.items()}  # type: ignore[union-attr]
    assert in_order == {k: (sorted(c.pairs), c.duplicated_lines) for k, c in alone.items()}  # type: ignore[union-attr]
    clones_in_shared_files = [
        side
        for unit in units
        for pair in batch[unit.unit_id].pairs  # type: ignore[union-attr]
        for side in pair
        if side[0] != unit.target
    ]
    assert len(clones_in_shared_files) >= 3

"""Each tool on a tiny repository with hand-worked expected values (cases/adapters.yaml)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.metrics import MeasureItem, Measurement, measure

pytestmark = pytest.mark.process  # the metric tools run as processes (mypy, jscpd on Node.js)

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "cases" / "adapters.yaml").read_text(encoding="utf-8")
)


@pytest.fixture(scope="module")
def measured() -> dict[str, dict[tuple[str, str], Measurement]]:
    items = [
        MeasureItem(
            cell_id=case["name"],
            repo_key=case["name"],
            files=case["files"],
            target=case["target"],
            candidate=case["candidate"],
        )
        for case in CASES
    ]
    by_cell: dict[str, dict[tuple[str, str], Measurement]] = {}
    for row in measure(items, workers=1):
        by_cell.setdefault(row.cell_id, {})[(row.tool, row.metric)] = row
    return by_cell


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_adapter_case(
    case: dict[str, Any], measured: dict[str, dict[tuple[str, str], Measurement]]
) -> None:
    rows = measured[case["name"]]
    for tool, metrics in case["expected"].items():
        for metric, (before, after) in metrics.items():
            row = rows[(tool, metric)]
            assert row.missing_reason is None, row.missing_reason
            assert row.before == pytest.approx(before, abs=1e-3), (tool, metric)
            assert row.after == pytest.approx(after, abs=1e-3), (tool, metric)
            assert row.delta == pytest.approx(after - before, abs=2e-3), (tool, metric)


def test_measuring_from_two_threads_at_once_gives_the_same_rows() -> None:
    """A Dask worker runs measure tasks side by side in threads of one process."""
    items = [
        MeasureItem(
            cell_id=f"{case['name']}/{copy}",
            repo_key=case["name"],
            files=case["files"],
            target=case["target"],
            candidate=case["candidate"],
        )
        for case in CASES
        for copy in range(2)
    ]
    halves = (items[::2], items[1::2])
    alone = [measure(half, workers=1) for half in halves]
    with ThreadPoolExecutor(max_workers=2) as threads:
        together = list(threads.map(lambda half: measure(half, workers=1), halves))
    assert together == alone

"""A tool failing on one output is a missing value with its reason: never a crash, never a zero."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.metrics import (
    METRICS,
    MeasureItem,
    Measurement,
    jscpd_tool,
    measure,
    mypy_tool,
    tool_versions,
)

pytestmark = pytest.mark.process  # the metric tools run as processes (mypy, jscpd on Node.js)

GOOD = "def first(x):\n    return x\n"
CANDIDATE = "def implement(x):\n    return first(x) + 1\n"


def _rows(items: list[MeasureItem]) -> dict[str, dict[tuple[str, str], Measurement]]:
    by_cell: dict[str, dict[tuple[str, str], Measurement]] = {}
    for row in measure(items, workers=1):
        by_cell.setdefault(row.cell_id, {})[(row.tool, row.metric)] = row
    return by_cell


def test_missing_jscpd_is_missing_jscpd_rows_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(jscpd_tool, "TOOLS_DIR", tmp_path)  # no node_modules here
    rows = _rows(
        [
            MeasureItem(
                cell_id="c",
                repo_key="k",
                files={"module.py": GOOD},
                target="module.py",
                candidate=CANDIDATE,
            )
        ]
    )["c"]
    for metric in jscpd_tool.METRICS:
        row = rows[("jscpd", metric)]
        assert row.after is None and row.delta is None
        assert row.missing_reason is not None and "jscpd is not installed" in row.missing_reason
    assert rows[("radon", "sloc")].missing_reason is None
    assert rows[("radon", "sloc")].delta == 2.0


def test_unparseable_repository_file_is_missing_not_zero() -> None:
    files = {"module.py": GOOD, "broken.py": "def broken(:\n    pass\n"}
    rows = _rows(
        [
            MeasureItem(
                cell_id="c", repo_key="k", files=files, target="module.py", candidate=CANDIDATE
            )
        ]
    )["c"]
    for tool, metric in [
        ("radon", "sloc"),
        ("complexipy", "cognitive_complexity"),
        ("grimp", "direct_imports"),
        ("ruff", "findings"),
        ("mypy", "errors"),
    ]:
        row = rows[(tool, metric)]
        assert row.before is None and row.after is None and row.delta is None, (tool, metric)
        assert row.missing_reason and row.missing_reason.startswith("before: "), (
            tool,
            row.missing_reason,
        )
        assert "after: " in row.missing_reason
    assert "broken.py" in (rows[("radon", "sloc")].missing_reason or "")
    # tools that look only at the new code still measure it
    assert rows[("difflib", "new_lines")].after == 2.0
    assert rows[("lizard", "max_nesting_depth_new_code")].missing_reason is None


def test_a_change_that_cannot_be_made_leaves_after_missing_and_keeps_others() -> None:
    items = [
        MeasureItem(
            cell_id="bad",
            repo_key="k",
            files={"module.py": GOOD},
            target="module.py",
            candidate="def implement(:\n",
        ),
        MeasureItem(
            cell_id="good",
            repo_key="k",
            files={"module.py": GOOD},
            target="module.py",
            candidate=CANDIDATE,
        ),
    ]
    rows = _rows(items)
    bad = rows["bad"][("radon", "sloc")]
    assert bad.before == 2.0 and bad.after is None and bad.delta is None
    assert bad.missing_reason is not None and bad.missing_reason.startswith(
        "after: change: candidate does not parse"
    )
    assert rows["good"][("radon", "sloc")].delta == 2.0


def test_a_blocking_error_in_a_mypy_batch_only_affects_its_own_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Force the unparseable repository into the shared build, as an unexpected blocking error would.
    monkeypatch.setattr(mypy_tool, "batch_name", lambda unit: f"{unit.unit_id}_module.py")
    items = [
        MeasureItem(
            cell_id="ok",
            repo_key="k1",
            files={"module.py": GOOD},
            target="module.py",
            candidate="def implement(x: int) -> str:\n    return x\n",
        ),
        MeasureItem(
            cell_id="broken",
            repo_key="k2",
            files={"module.py": GOOD + "\n\nx = (\n"},
            target="module.py",
            candidate=CANDIDATE,
        ),
    ]
    rows = _rows(items)
    ok = rows["ok"][("mypy", "errors")]
    assert (ok.before, ok.after, ok.missing_reason) == (0.0, 1.0, None)
    broken = rows["broken"][("mypy", "errors")]
    assert (
        broken.before is None
        and broken.missing_reason
        and "mypy exit status 2" in broken.missing_reason
    )


def test_every_metric_has_a_row_with_its_tool_version() -> None:
    rows = measure(
        [
            MeasureItem(
                cell_id="c",
                repo_key="k",
                files={"module.py": GOOD},
                target="module.py",
                candidate=CANDIDATE,
            )
        ],
        workers=1,
    )
    versions = tool_versions()
    assert [(r.tool, r.metric) for r in rows] == list(METRICS)
    assert all(r.tool_version == versions[r.tool] for r in rows)
    assert versions["jscpd"] == jscpd_tool.pinned_version() != "unpinned"


def test_a_target_jscpd_skips_is_missing_duplication_not_zero() -> None:
    long_target = "".join(f"VALUE_{i} = {i}\n" for i in range(1000))  # 1001 lines as jscpd counts
    item = MeasureItem(
        cell_id="c",
        repo_key="k",
        files={"module.py": long_target},
        target="module.py",
        candidate=CANDIDATE,
    )
    rows = {(r.tool, r.metric): r for r in measure([item], workers=1)}
    for metric in jscpd_tool.METRICS:
        row = rows[("jscpd", metric)]
        assert row.after is None and row.delta is None
        assert row.missing_reason is not None and "default limits" in row.missing_reason
    assert rows[("radon", "sloc")].delta == 2.0

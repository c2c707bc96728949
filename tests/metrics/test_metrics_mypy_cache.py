"""mypy's cache outlives a measure stage (assay.metrics.mypy_cache): each process takes a slot of
its own under the memo root, no two processes share one, the memo turned off starts cold, and
rows measured against a cache warmed by other repositories are the rows of a cold cache."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from assay.metrics import measure, mypy_cache, mypy_tool
from assay.metrics.records import ToolResult
from assay.metrics.units import Unit, write_unit
from tests.metrics.test_metrics_naive_agreement import _sample


@pytest.fixture
def memo_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_MEMO", raising=False)
    monkeypatch.setenv("ASSAY_MEMO_DIR", str(tmp_path / "memo"))
    monkeypatch.setattr(mypy_cache, "_held", {})
    return tmp_path / "memo"


def test_a_process_keeps_one_slot_under_the_memo_root(memo_dir, tmp_path):
    first = mypy_cache.slot(tmp_path / "fallback")
    assert first.parent == memo_dir / "mypy" / mypy_cache._mypy_version()
    assert first.name == "slot-0"
    assert mypy_cache.slot(tmp_path / "fallback") == first


def test_a_slot_another_process_holds_is_skipped(memo_dir, tmp_path):
    base = memo_dir / "mypy" / mypy_cache._mypy_version()
    base.mkdir(parents=True)
    other = os.open(base / "slot-0.lock", os.O_RDWR | os.O_CREAT)  # another holder's lock
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert mypy_cache.slot(tmp_path / "fallback").name == "slot-1"
    finally:
        os.close(other)


def test_memo_off_starts_cold_in_the_fallback(monkeypatch, tmp_path):
    monkeypatch.setenv("ASSAY_MEMO", "off")
    monkeypatch.setattr(mypy_cache, "_held", {})
    assert mypy_cache.slot(tmp_path / "fallback") == tmp_path / "fallback"


@pytest.mark.process  # the metric tools run as processes (mypy, jscpd on Node.js)
def test_rows_are_the_same_with_a_cache_warmed_by_other_repositories(memo_dir, monkeypatch):
    sample = _sample()
    monkeypatch.setenv("ASSAY_MEMO", "off")
    cold = measure(sample, workers=1)
    monkeypatch.delenv("ASSAY_MEMO")
    measure(sample[1:], workers=1)  # warms this process's slot with the other repository
    for remembered in (memo_dir / "metrics").rglob("*.json"):
        remembered.unlink()  # measured again, not recalled
    assert list((memo_dir / "mypy").glob("*/slot-0/*"))
    assert measure(sample, workers=1) == cold


SINGLE = Unit(
    unit_id="a00001",
    files={"module.py": "def f() -> int:\n    return undefined\n"},
    target="module.py",
)
PACKAGE = Unit(
    unit_id="b00001",
    files={
        "app/__init__.py": "",
        "app/helpers.py": "def helper() -> int:\n    return 'text'\n",
        "app/target.py": "from app.helpers import helper\n\n\ndef g() -> str:\n    return helper()\n",
    },
    target="app/target.py",
)


@pytest.mark.process  # mypy's API builds in this process
def test_repositories_checked_again_against_the_warm_cache_count_every_error(tmp_path):
    """mypy reports no error of a module its cache holds with the same text, wherever the file
    now is: the same repositories checked again (as the next stage or another run does) must
    count what a cold cache counts, not only the errors of what changed."""
    config = tmp_path / "mypy.ini"
    config.write_text(mypy_tool.EMPTY_CONFIG, encoding="utf-8")
    cache = tmp_path / "cache"
    counts = [
        {
            unit_id: result.values["errors"]
            for unit_id, result in _measure(
                [SINGLE, PACKAGE], tmp_path / f"check-{attempt}", config, cache
            ).items()
        }
        for attempt in range(3)
    ]
    assert counts[0] == {"a00001": 1.0, "b00001": 2.0}
    assert counts[1] == counts[0] and counts[2] == counts[0]


def _measure(units: list[Unit], work: Path, config: Path, cache: Path) -> dict[str, ToolResult]:
    """``units`` measured as the engine measures them: written into a fresh folder of
    repositories, then checked against ``cache``."""
    for unit in units:
        write_unit(work / "repos", unit)
    return mypy_tool.measure_many(units, work / "repos", work / "batch", config, cache)


def _package(unit_id: str, helper_returns: str) -> Unit:
    """PACKAGE with another helper body of the same size: only the helper's text differs."""
    helpers = f"def helper() -> int:\n    return {helper_returns}\n"
    return PACKAGE.model_copy(
        update={"unit_id": unit_id, "files": {**PACKAGE.files, "app/helpers.py": helpers}}
    )


@pytest.mark.process  # mypy's API builds in this process
def test_a_changed_dependency_of_the_same_size_is_checked_again(tmp_path):
    """One unit id holding repositories that differ in one file of the same size (as unit ids
    recur from stage to stage with other texts), measured back to back in the same second
    against one cache (mypy trusts a file whose path, size and second match its cache): each
    measurement counts its own errors, those of its unchanged modules included."""
    config = tmp_path / "mypy.ini"
    config.write_text(mypy_tool.EMPTY_CONFIG, encoding="utf-8")
    wrong, right = _package("b00001", "'text'"), _package("b00001", "123456")
    assert len(wrong.files["app/helpers.py"]) == len(right.files["app/helpers.py"])
    cache = tmp_path / "cache"
    counts = [
        _measure([unit], tmp_path / f"check-{attempt}", config, cache)["b00001"].values["errors"]
        for attempt, unit in enumerate([wrong, right, wrong, right])
    ]
    # wrong: helper returns str (1) and g returns its int as str (1); right: g only (1)
    assert counts == [2.0, 1.0, 2.0, 1.0]


def test_the_freshness_comment_keeps_every_line_where_it_was():
    assert mypy_tool.checked_text("x = 1", "c1") == "x = 1\n# assay: mypy check c1\n"
    assert mypy_tool.checked_text("x = 1\n", "c1") == "x = 1\n# assay: mypy check c1\n"
    assert mypy_tool.checked_text("", "c1") == "# assay: mypy check c1\n"

"""Code metrics remembered by unit (assay.core.memo): a unit measured before with the same files,
change and tool versions is not measured again, and the rows are the same; a unit one of whose
tools failed is not remembered."""

from __future__ import annotations

import pytest

from assay.metrics import engine, measure
from tests.metrics.test_metrics_naive_agreement import _sample

pytestmark = pytest.mark.process  # the metric tools run as processes (mypy, jscpd on Node.js)


@pytest.fixture
def memo_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_MEMO", raising=False)
    monkeypatch.setenv("ASSAY_MEMO_DIR", str(tmp_path / "memo"))
    return tmp_path / "memo"


def test_a_unit_measured_before_is_not_measured_again(memo_dir, monkeypatch):
    sample = _sample()
    first = measure(sample, workers=1)
    remembered = list((memo_dir / "metrics").rglob("*.json"))
    assert len(remembered) == 4  # two repositories, each before and after its change

    def must_not_run(units, work, workers):
        raise AssertionError(f"measured again: {[u.unit_id for u in units]}")

    monkeypatch.setattr(engine, "_measure_units", must_not_run)
    renamed = [item.model_copy(update={"cell_id": item.cell_id + "-again"}) for item in sample]
    again = measure(renamed, workers=1)
    assert [r.model_copy(update={"cell_id": r.cell_id[: -len("-again")]}) for r in again] == first


def test_a_unit_a_tool_failed_on_is_measured_again(memo_dir, monkeypatch):
    sample = _sample()[:1]
    real = engine._measure_units

    def jscpd_fails(units, work, workers):
        results = real(units, work, workers)
        for by_tool in results.values():
            by_tool["jscpd"] = engine.ToolResult.failed("jscpd", "tool-error: node crashed")
        return results

    monkeypatch.setattr(engine, "_measure_units", jscpd_fails)
    measure(sample, workers=1)
    assert not list((memo_dir / "metrics").rglob("*.json"))


class _Distribution:
    def __init__(self, name: str, version: str) -> None:
        self.metadata = {"Name": name}
        self.version = version


def test_a_remembered_unit_is_keyed_by_the_packages_beside_the_tools(monkeypatch):
    """mypy checks a repository's imports against the installed packages (a codebase's pydantic
    and httpx are assay's own), so another version of one is another key, with every tool
    version the same."""
    from assay.metrics import versions

    unit = engine.plan_units(_sample()[:1])[0][0]
    tools = versions.tool_versions()
    installed = [_Distribution("pydantic", "2.14.4"), _Distribution("httpx", "0.28.1")]
    monkeypatch.setattr(versions, "distributions", lambda: list(installed))
    versions.environment_digest.cache_clear()
    try:
        before = engine.unit_key(unit, tools)
        versions.environment_digest.cache_clear()
        assert engine.unit_key(unit, tools) == before  # the same packages: the same key
        installed[0] = _Distribution("pydantic", "2.15.0")
        versions.environment_digest.cache_clear()
        assert engine.unit_key(unit, tools) != before
    finally:
        versions.environment_digest.cache_clear()

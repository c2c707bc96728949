"""``selftest`` stage: before any plan can be executed, the sandbox must pass every subject's
reference implementations (both) on every vector and fail a known-wrong implementation.

A failing self-test fails the stage, so no plan — and no provider request — follows it.
"""

from __future__ import annotations

from assay.pipeline import paths
from assay.pipeline.subjects import read_scenario
from assay.sandbox.image import ImageRecord, read_record
from assay.sandbox.selftest import SelfTestReport, run_selftest


class SelfTestFailed(RuntimeError):
    """The sandbox did not reproduce the references' correctness: nothing may be planned."""


def read_image() -> ImageRecord:
    record = read_record(paths.image_record())
    if record is None:
        raise FileNotFoundError(
            f"{paths.image_record()} is missing: run the image stage (`dvc repro image`)"
        )
    return record


def read_selftest(scenario: str) -> SelfTestReport:
    return SelfTestReport.model_validate_json(paths.selftest_file(scenario).read_bytes())


def run(scenario_name: str) -> SelfTestReport:
    scenario = read_scenario(scenario_name)
    report = run_selftest(
        scenario.subjects, read_image().image_id, description=f"selftest {scenario_name}"
    )
    path = paths.selftest_file(scenario_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    if not report.passed:
        lines = [f"  {f.subject}/{f.arm} {f.implementation}: {f.status} ({f.reason}), expected {f.expected_status}"
                 for f in report.failures]  # fmt: skip
        raise SelfTestFailed(
            f"sandbox self-test of scenario {scenario_name} failed ({len(report.failures)} of "
            f"{report.checks} checks); nothing will be planned:\n" + "\n".join(lines)
        )
    return report

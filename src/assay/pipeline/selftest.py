"""``selftest`` stage: before any plan exists, prove that every evaluator a run relies on judges
known answers as declared; a failing self-test fails the stage, so no plan — and no provider
request — follows it.

- the sandbox passes every subject's reference implementations (both) on every vector and fails
  a known-wrong implementation, on every arm that runs correctness
  (:mod:`assay.sandbox.selftest`); an arm that skips correctness needs no such proof;
- the structural evaluator scores the references as declared, and a chained scenario renders
  every later step from them (:mod:`assay.pipeline.known_answers`).

A scenario none of whose arms runs correctness (chain) starts no container here.
"""

from __future__ import annotations

from assay.params import Params
from assay.pipeline import paths
from assay.pipeline.known_answers import KnownAnswersReport, check_known_answers
from assay.pipeline.subjects import read_scenario
from assay.records import Frozen
from assay.sandbox.image import ImageRecord, read_record
from assay.sandbox.selftest import SelfTestReport, run_selftest


class SelfTestFailed(RuntimeError):
    """An evaluator did not reproduce the known answers: nothing may be planned."""


class ScenarioSelfTest(Frozen):
    scenario: str
    sandbox: SelfTestReport
    known_answers: KnownAnswersReport

    @property
    def passed(self) -> bool:
        return self.sandbox.passed and self.known_answers.passed

    def failure_lines(self) -> list[str]:
        lines = [f"  sandbox {f.subject}/{f.arm} {f.implementation}: {f.status} ({f.reason}), "
                 f"expected {f.expected_status}" for f in self.sandbox.failures]  # fmt: skip
        lines += [
            f"  {f.check} {f.subject}" + (f"/{f.arm}" if f.arm else "")
            + (f" step {f.step}" if f.step else "") + f" reference-{f.reference}: {f.problem}"
            for f in self.known_answers.failures
        ]  # fmt: skip
        return lines


def read_image() -> ImageRecord:
    record = read_record(paths.image_record())
    if record is None:
        raise FileNotFoundError(
            f"{paths.image_record()} is missing: run the image stage (`dvc repro image/dvc.yaml`)"
        )
    return record


def read_selftest(scenario: str) -> ScenarioSelfTest:
    return ScenarioSelfTest.model_validate_json(paths.selftest_file(scenario).read_bytes())


def run(scenario_name: str, params: Params) -> ScenarioSelfTest:
    scenario = read_scenario(scenario_name)
    report = ScenarioSelfTest(
        scenario=scenario_name,
        sandbox=run_selftest(scenario.subjects, read_image().image_id),
        known_answers=check_known_answers(scenario, params.analysis.structure_evaluator),
    )
    path = paths.selftest_file(scenario_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    if not report.passed:
        lines = report.failure_lines() or ["  the sandbox checks did not all run"]
        raise SelfTestFailed(
            f"self-test of scenario {scenario_name} failed ({len(lines)} problems); nothing will "
            "be planned:\n" + "\n".join(lines)
        )
    return report

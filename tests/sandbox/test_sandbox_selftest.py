"""The self-test: references pass on every arm, a known-wrong implementation fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET

from assay.fixtures.model import Arm, References, Subject, Task, Vector
from assay.fixtures.scenarios import load_scenario
from assay.sandbox.selftest import SelfTestReport, run_selftest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def subject(reused: str, sandbox: str = "standard") -> Subject:
    task = Task(
        id="double-plus",
        family="cosmetic",
        instruction="Return double the value plus one.",
        helper="double",
        primitives=("int.__mul__",),
        vectors=(
            Vector(input=1, expected=3),
            Vector(input=2, expected=5),
            Vector(input=0, expected=1),
        ),
        references=References(
            reused=reused, duplicated="def implement(value):\n    return value * 2 + 1\n"
        ),
    )
    arms = tuple(
        Arm(name=name, files=CORPUS_FILES, sandbox=sandbox) for name in ("clean", "inconsistent")
    )
    return Subject(scenario="test", task=task, target=CORPUS_TARGET, arms=arms)


@pytest.mark.docker
def test_correct_references_pass(sandbox_image: str) -> None:
    report = run_selftest(
        [subject("def implement(value):\n    return double(value) + 1\n")], sandbox_image
    )
    assert report.passed, report.failures
    assert report.checks == 5  # both references in both arms, the known-wrong one once


@pytest.mark.docker
def test_a_wrong_reference_fails_the_selftest(sandbox_image: str) -> None:
    report = run_selftest(
        [subject("def implement(value):\n    return double(value)\n")], sandbox_image
    )
    assert not report.passed
    assert {(f.arm, f.implementation, f.status) for f in report.failures} == {
        ("clean", "reference-reused", "incorrect"),
        ("inconsistent", "reference-reused", "incorrect"),
    }


def test_arms_that_skip_correctness_need_no_sandbox_check() -> None:
    # no daemon is contacted: the image id does not exist
    report = run_selftest([subject("irrelevant", sandbox="skip")], "sha256:" + "0" * 64)
    assert (report.checks, report.sandboxed_arms, report.needed) == (0, 0, False)
    assert report.sandboxed_subjects == 0
    assert report.passed


def test_a_sandboxed_arm_without_its_checks_does_not_pass() -> None:
    report = SelfTestReport(
        image="sha256:" + "0" * 64, sandboxed_arms=2, sandboxed_subjects=1, checks=0, failures=()
    )
    assert report.needed and not report.passed
    assert report.model_copy(update={"checks": 5}).passed


@pytest.mark.docker
def test_v1_references(sandbox_image: str) -> None:
    scenario = load_scenario("v1", FIXTURES)
    report = run_selftest(scenario.subjects, sandbox_image)
    assert report.passed, report.failures


def test_a_failing_reference_names_the_vector_it_failed_on() -> None:
    """A wrong test vector (or a wrong reference) is named by its index and input."""
    from assay.evidence import ScenarioSelfTest
    from assay.evidence.documents import KnownAnswersReport
    from assay.sandbox.results import CaseOutcome, CorrectnessResult

    wrong_on_second = CorrectnessResult(
        status="incorrect",
        reason="wrong-value",
        cases=(
            CaseOutcome(index=0, outcome="pass"),
            CaseOutcome(index=1, outcome="wrong-value", actual="4"),
            CaseOutcome(index=2, outcome="pass"),
        ),
    )

    def evaluate(requests):
        return [
            wrong_on_second if "double(value)" in r.candidate else CorrectnessResult(
                status="correct" if "None" not in r.candidate else "incorrect", reason="x"
            )
            for r in requests
        ]  # fmt: skip

    report = run_selftest(
        [subject("def implement(value):\n    return double(value) + 1\n")], "img", evaluate=evaluate
    )
    failure = report.failures[0]
    assert (failure.case, failure.case_input) == (1, "2")
    whole = ScenarioSelfTest(
        scenario="test",
        sandbox=report,
        known_answers=KnownAnswersReport(
            structure_version=7, structure_checks=1, step_checks=0, failures=()
        ),
    )
    assert "first failing case: vectors[1] (input 2)" in whole.failure_lines()[0]

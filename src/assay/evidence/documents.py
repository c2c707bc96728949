"""The JSON documents under ``data/``: the sandbox image record, the self-test report and the
authorization. (The plan is :mod:`assay.evidence.plan`; the scenario is the fixtures' model,
:class:`~assay.fixtures.model.Scenario`.)"""

from __future__ import annotations

from typing import Any, Literal

from assay.core.records import Frozen

ImageKind = Literal["standard", "packages"]


class ImageRecord(Frozen):
    """``data/image/<kind>.json``: the sandbox image the daemon holds for the current recipe."""

    kind: ImageKind
    image_id: str
    python_version: str
    recipe_digest: str


Implementation = Literal["reference-reused", "reference-duplicated", "known-wrong"]


class SelfTestFailure(Frozen):
    subject: str
    arm: str
    implementation: Implementation
    expected_status: str
    status: str
    reason: str
    case: int | None = None
    """The first case (vector index in task.toml, from 0) that did not pass."""
    case_input: str | None = None
    """That vector's input, as JSON."""


class SelfTestReport(Frozen):
    """The sandbox against the references (part of ``data/selftest/<scenario>/selftest.json``)."""

    image: str
    sandboxed_arms: int
    """(subject, arm) pairs whose correctness runs in the sandbox; 0 when every arm skips it."""
    sandboxed_subjects: int
    """Subjects with at least one such arm (each runs the known-wrong implementation once)."""
    checks: int
    failures: tuple[SelfTestFailure, ...]
    engine: dict[str, str] | None = None
    """The Docker engine and client the checks ran on (``assay.compute.engine.EngineIdentity``);
    None when no check ran."""
    policy: dict[str, Any] | None = None
    """The sandbox runtime policy they ran under (``assay.sandbox.policy.describe``)."""

    @property
    def needed(self) -> bool:
        """Some arm runs correctness, so the sandbox must have been proven on it."""
        return self.sandboxed_arms > 0

    @property
    def expected_checks(self) -> int:
        """Both references in every sandboxed arm, the known-wrong one once per subject."""
        return 2 * self.sandboxed_arms + self.sandboxed_subjects

    @property
    def passed(self) -> bool:
        """Every check of every sandboxed arm ran, and none failed."""
        return not self.failures and self.checks == self.expected_checks


Reference = Literal["reused", "duplicated"]


class KnownAnswerFailure(Frozen):
    check: Literal["structure", "chain-step"]
    subject: str
    reference: Reference
    arm: str | None = None
    step: int | None = None
    problem: str


class KnownAnswersReport(Frozen):
    """The structural evaluator and the chain steps against the references."""

    structure_version: int
    structure_checks: int
    step_checks: int
    failures: tuple[KnownAnswerFailure, ...]

    @property
    def passed(self) -> bool:
        return self.structure_checks > 0 and not self.failures


class ScenarioSelfTest(Frozen):
    """``data/selftest/<scenario>/selftest.json``: everything a scenario's runs rely on, proven
    on known answers before any plan."""

    scenario: str
    sandbox: SelfTestReport
    known_answers: KnownAnswersReport

    @property
    def passed(self) -> bool:
        return self.sandbox.passed and self.known_answers.passed

    def failure_lines(self) -> list[str]:
        lines = [f"  sandbox {f.subject}/{f.arm} {f.implementation}: {f.status} ({f.reason}), "
                 f"expected {f.expected_status}"
                 + (f"; first failing case: vectors[{f.case}] (input {f.case_input})"
                    if f.case is not None and f.implementation != "known-wrong" else "")
                 for f in self.sandbox.failures]  # fmt: skip
        lines += [
            f"  {f.check} {f.subject}" + (f"/{f.arm}" if f.arm else "")
            + (f" step {f.step}" if f.step else "") + f" reference-{f.reference}: {f.problem}"
            for f in self.known_answers.failures
        ]  # fmt: skip
        return lines


AuthorizationState = Literal["free", "authorized", "awaiting-authorization"]


# data/authorize/<run>/authorization.json: what assay.paid.authorize.decide made of a run's plan (no
# docstring: it would become the published JSON schema's description, schemas/)
class Authorization(Frozen):
    run: str
    state: AuthorizationState
    plan_hash: str
    cells: int
    requests: int
    worst_case_usd: float
    reason: str

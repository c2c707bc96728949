"""The JSON documents under ``data/`` that no other module owns: the sandbox image record and
the sandbox self-test report. (The scenario, plan and authorization are records of their own
modules: :class:`~assay.fixtures.model.Scenario`, :class:`~assay.plan.Plan`,
:class:`~assay.authorize.Authorization`.)"""

from __future__ import annotations

from typing import Literal

from assay.records import Frozen

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


class SelfTestReport(Frozen):
    """``data/selftest/<scenario>/selftest.json``: the sandbox against the references."""

    image: str
    checks: int
    failures: tuple[SelfTestFailure, ...]

    @property
    def passed(self) -> bool:
        return self.checks > 0 and not self.failures

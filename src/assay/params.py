"""``params.yaml``: the runs, model profiles, analysis plan and evaluator versions, validated.

Stage scripts read their section through here, so a typo in ``params.yaml`` fails with the
section and field it is in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from assay.errors import InputError
from assay.providers.base import ModelProfile
from assay.records import Frozen

RunId = str


class RunSpec(Frozen):
    """One row of ``params.yaml: runs``."""

    model: str
    scenario: str
    repeats: int = Field(default=2, ge=1)
    schedule: str | None = None
    """``None``: the scenario's default (see ``assay.schedule.default_schedule``)."""
    allow_paid: bool = False
    authorization: str | None = None
    plan_ref: str | None = None


class AnalysisPlan(Frozen):
    method: Literal["paired-v2"] = "paired-v2"
    alpha: float = Field(default=0.05, gt=0, lt=1)
    median: Literal["lower"] = "lower"
    minimum_subjects: int = Field(default=10, ge=1)
    structure_evaluator: int = 7
    """The preregistered structural evaluator version. Rescoring with another version
    (``evaluators.structure``) is reported as a deviation from it, not a new plan."""


class Evaluators(Frozen):
    """The versions the evaluator stages score with now (not part of the plan)."""

    structure: int = 7
    structure_runs: dict[str, int] = Field(default_factory=dict)
    """Per-run rescoring (``assay rescore RUN --structure-version V``): the version that run's
    reports score with instead of ``structure``. Every version is scored side by side anyway."""

    @model_validator(mode="after")
    def _versions_registered(self) -> Evaluators:
        from assay.structure.versions import EVALUATOR_VERSIONS

        for where, number in [("structure", self.structure)] + [
            (f"structure_runs.{run}", n) for run, n in self.structure_runs.items()
        ]:
            if number not in EVALUATOR_VERSIONS:
                known = ", ".join(str(n) for n in sorted(EVALUATOR_VERSIONS))
                raise ValueError(f"evaluators.{where}: unknown version {number} (known: {known})")
        return self


class CostRuns(Frozen):
    """Which runs the duplication-cost report pools (``report.cost_runs``). Every filter given
    must match; simulated runs are left out unless ``include_simulated`` is true."""

    runs: tuple[str, ...] | None = None
    scenarios: tuple[str, ...] | None = None
    models: tuple[str, ...] | None = None
    """Model profile names (keys of ``models``)."""
    include_simulated: bool = False


class ReportOptions(Frozen):
    metrics_reference_arm: str | None = None
    """The arm every other arm is compared with in the metrics report (default: the scenario's
    reference arm, ``clean`` or ``mess-00``)."""
    cost_runs: CostRuns = CostRuns()
    adjudications: str = "adjudications.yaml"
    """Human decisions on ``ambiguous`` cells (see ``assay adjudicate``); reported beside the
    preregistered result, never instead of it."""


class Params(Frozen):
    fixtures: str = "fixtures"
    ledger_root: str = "ledger"
    scenarios: tuple[str, ...] = ()
    analysis: AnalysisPlan = AnalysisPlan()
    evaluators: Evaluators = Evaluators()
    report: ReportOptions = ReportOptions()
    models: dict[str, ModelProfile]
    runs: dict[RunId, RunSpec]

    @model_validator(mode="after")
    def _references_resolve(self) -> Params:
        for run_id, run in self.runs.items():
            if run.model not in self.models:
                raise ValueError(f"runs.{run_id}.model: unknown model profile {run.model!r}")
            if run.scenario not in self.scenarios:
                raise ValueError(
                    f"runs.{run_id}.scenario: {run.scenario!r} is not listed under 'scenarios'"
                )
        for run_id in self.evaluators.structure_runs:
            if run_id not in self.runs:
                raise ValueError(f"evaluators.structure_runs: unknown run {run_id!r}")
        chosen = self.report.cost_runs
        for field, known in (
            ("runs", self.runs),
            ("scenarios", self.scenarios),
            ("models", self.models),
        ):
            unknown = sorted(set(getattr(chosen, field) or ()) - set(known))
            if unknown:
                raise ValueError(
                    f"report.cost_runs.{field}: unknown {', '.join(map(repr, unknown))} "
                    f"(declared: {', '.join(known)})"
                )
        return self

    def structure_version(self, run_id: str) -> int:
        """The structural evaluator version ``run_id``'s reports score with."""
        return self.evaluators.structure_runs.get(run_id, self.evaluators.structure)

    def run(self, run_id: str) -> RunSpec:
        try:
            return self.runs[run_id]
        except KeyError:
            raise ParamsError(
                f"params.yaml: no run {run_id!r} (declared: {', '.join(self.runs)})"
            ) from None

    def profile_for(self, run_id: str) -> ModelProfile:
        return self.models[self.run(run_id).model]


class ParamsError(InputError):
    """params.yaml is missing, unreadable or invalid; the message names the field."""


def load_params(path: Path | str = "params.yaml") -> Params:
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParamsError(f"{path}: not found") from None
    except yaml.YAMLError as exc:
        raise ParamsError(f"{path}: invalid YAML: {exc}") from None
    try:
        return Params.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise ParamsError(f"{path}: field {where!r}: {first['msg']}") from None

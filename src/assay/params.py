"""``params.yaml``: the runs, model profiles, analysis plan and evaluator versions, validated.

Stage scripts read their section through here, so a typo in ``params.yaml`` fails with the
section and field it is in.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

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


class ReportOptions(Frozen):
    metrics_reference_arm: str | None = None
    """The arm every other arm is compared with in the metrics report (default: the scenario's
    reference arm, ``clean`` or ``mess-00``)."""


SCHEDULER_ADDRESS = re.compile(r"^(tcp|tls)://[A-Za-z0-9.\-\[\]:]+:[0-9]{1,5}$")


class Compute(Frozen):
    """Where the correctness, measure and self-test stages run their per-cell work (not part of
    any plan: where work runs does not change what it means; see docs/scale.md)."""

    scheduler: str = "local"
    """``local`` (this machine) or a Dask scheduler address, ``tcp://host:8786``."""
    sandbox_slots_per_worker: int = Field(default=2, ge=1, le=64)
    """Sandboxed cells one Dask worker runs at once (a cell mostly waits on its engine)."""
    measure_cells_per_task: int = Field(default=16, ge=1, le=10_000)
    """Outputs measured per Dask task in the measure stage (one tool start-up per task)."""
    connect_timeout_seconds: float = Field(default=10.0, gt=0, le=300)

    @field_validator("scheduler")
    @classmethod
    def _local_or_address(cls, value: str) -> str:
        if value != "local" and not SCHEDULER_ADDRESS.match(value):
            raise ValueError(f"{value!r} is neither 'local' nor a scheduler address tcp://host:port")
        return value

    @property
    def distributed(self) -> bool:
        return self.scheduler != "local"


class Params(Frozen):
    fixtures: str = "fixtures"
    ledger_root: str = "ledger"
    scenarios: tuple[str, ...] = ()
    analysis: AnalysisPlan = AnalysisPlan()
    evaluators: Evaluators = Evaluators()
    report: ReportOptions = ReportOptions()
    compute: Compute = Compute()
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
        return self

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

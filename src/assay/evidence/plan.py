"""``data/plan/<run>/plan.json``: the plan, the canonical JSON of everything a run will do and
how it will be judged (built by :func:`assay.paid.plan.build_plan`); its sha256 is the plan hash a
person authorizes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictInt

from assay.core.digest import canonical_json, sha256_hex
from assay.core.records import CallKey, Frozen
from assay.providers.base import NANO, ModelProfile, nano_down, nano_up

PLAN_SCHEMA = "assay-plan/1"


class AnalysisPlan(Frozen):
    method: Literal["paired-v2"] = "paired-v2"
    alpha: float = Field(default=0.05, gt=0, lt=1)
    median: Literal["lower"] = "lower"
    minimum_subjects: StrictInt = Field(default=10, ge=1)
    structure_evaluator: StrictInt = 7
    """The preregistered structural evaluator version. Rescoring with another version
    (``evaluators.structure``) is reported as a deviation from it, not a new plan."""
    extraction: StrictInt = 2
    """The preregistered extraction rules (``assay.science.extract``), also used to build chain steps.
    Re-extracting with another version (``evaluators.extraction``) is a deviation from it."""


DEVIATION_LABEL = "deviation from the preregistered analysis"
"""How every report labels a result computed with an analysis other than the preregistered one."""


class PreregisteredChange(Frozen):
    """One field of a run's preregistration and what params.yaml says of it now."""

    field: str
    preregistered: str | int | float
    now: str | int | float

    def text(self) -> str:
        """``alpha 0.05 → 0.01``."""
        return f"{self.field} {_shown(self.preregistered)} → {_shown(self.now)}"


def _shown(value: str | float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


PREREGISTERED_FIELDS = (
    "method",
    "alpha",
    "median",
    "minimum_subjects",
    "repeats",
    "structure_evaluator",
    "extraction",
)
"""A preregistration's fields in the order the reports name them."""


class Preregistration(AnalysisPlan):
    """Everything a run's primary decision depends on, as its plan fixed it before any answer
    was read: the analysis (method, alpha, median rule, minimum subjects, evaluator and
    extraction versions) and the repeats per cell. :attr:`Plan.preregistration` is the record;
    the plan's hash covers every field, so an authorization binds it, and a run that has begun
    keeps it (``assay.paid.preregistration``)."""

    repeats: StrictInt = Field(ge=1)

    @classmethod
    def of(cls, analysis: AnalysisPlan, repeats: int) -> Preregistration:
        return cls(**analysis.model_dump(), repeats=repeats)

    def changes(self, now: Preregistration) -> tuple[PreregisteredChange, ...]:
        """The fields ``now`` gives another value, in declaration order."""
        return tuple(
            PreregisteredChange(field=name, preregistered=before, now=after)
            for name in PREREGISTERED_FIELDS
            if (before := getattr(self, name)) != (after := getattr(now, name))
        )

    def text(self) -> str:
        """``paired-v2, alpha 0.05, lower median, at least 10 complete subjects, 2 repeats,
        structure evaluator v7, extraction v3``."""
        return (
            f"{self.method}, alpha {self.alpha:g}, {self.median} median, at least "
            f"{self.minimum_subjects} complete subjects, {self.repeats} repeats, structure "
            f"evaluator v{self.structure_evaluator}, extraction v{self.extraction}"
        )


def changes_text(changes: tuple[PreregisteredChange, ...]) -> str:
    """``alpha 0.05 → 0.01, repeats 2 → 3``."""
    return ", ".join(change.text() for change in changes)


class Replanned(Frozen):
    """A free run planned anew after it began under another plan: an edit changed its cells
    (repeats, a fixture, the model), so its calls are sent again under the new plan, whose
    preregistration is params.yaml's. Every report of the run says so."""

    earlier_plan: str
    """The plan the run began under (its answers stay in its ledger folder, unreported)."""
    changes: tuple[PreregisteredChange, ...]
    """How the new preregistration differs from the earlier plan's (empty: it does not)."""

    def text(self) -> str:
        changed = (
            f"; its preregistration changed too ({changes_text(self.changes)})"
            if self.changes
            else ""
        )
        return (
            f"this run began under plan {self.earlier_plan}, and an edit changed its cells, so it "
            f"was planned anew and every call sent again under this plan{changed}. The earlier "
            "plan's answers are not in this report"
        )


class PromptRef(Frozen):
    digest: str
    request_bytes: int


class PlannedCell(Frozen):
    cell_id: str
    subject: str
    arm: str
    repeat: int
    steps: int
    subject_digest: str
    arm_digest: str
    prompt_digest: str
    """Digest of the first step's prompt (later chain steps are rendered from earlier outputs)."""
    excluded: str | None = None
    """Why the plan will never send this cell (for example ``request-over-cap``)."""

    def call(self, step: int) -> CallKey:
        """The key of this cell's call at ``step``."""
        return CallKey(cell_id=self.cell_id, step=step)


BYTES_PER_TOKEN = 3
"""For the expected spend only: code and English prose run 3-4 bytes a token in the tokenizers
of the models this study uses, so 3 errs high."""


class Budget(Frozen):
    paid: bool
    ceiling_usd: float
    reservation_usd: float
    requests: int = Field(ge=0)
    """Provider requests the plan may send: admitted cells × steps."""
    admitted_requests: int = Field(ge=0)
    """Requests the ceiling admits at one reservation each (all of them for a free plan)."""
    worst_case_usd: float
    expected_prompt_tokens: int = Field(default=0, ge=0)
    """The admitted requests' prompt tokens as estimated from their sizes (one token per
    ``BYTES_PER_TOKEN`` bytes of the request body; a chain's later steps counted as its first)."""
    expected_usd: float = 0.0
    """What the admitted requests are expected to cost at the price caps: the estimated prompt
    tokens, and every answer at ``max_output_tokens``. An estimate, not a bound: the
    reservation (the full context) is what admission counts."""

    @property
    def reservation_nano(self) -> int:
        return nano_up(self.reservation_usd)

    @property
    def ceiling_nano(self) -> int:
        return nano_down(self.ceiling_usd)

    @property
    def partial(self) -> bool:
        """The ceiling halts the run before its last request."""
        return self.admitted_requests < self.requests

    def admission_text(self) -> str:
        return f"the ceiling admits {self.admitted_requests} of {self.requests} requests"

    def full_ceiling_usd(self) -> float:
        """The smallest ceiling that admits every request."""
        return self.requests * self.reservation_nano / NANO


class Reproduction(Frozen):
    """A plan that sends again some cells of another run's plan (``runs.RUN.reproduces``)."""

    run: str
    """The run whose cells it sends again."""
    sample: int
    """How many of that run's cells it sends (its own cells)."""
    of: int
    """How many cells that run's plan has."""


class Qualification(Frozen):
    """A plan that qualifies its hosted route (``runs.RUN.qualifies``): a fixed sample of its
    scenario's cells, sent and answered before any other run on the route may be authorized
    (``assay.paid.qualification``)."""

    sample: int
    """How many of the scenario's cells it sends (its own cells)."""
    of: int
    """How many cells the scenario's full grid has at the run's repeats."""


class Plan(Frozen):
    schema_: str = Field(default=PLAN_SCHEMA, alias="schema")
    run: str
    scenario: str
    fixture_sources: str
    """sha256 of the manifest of every fixture file the scenario reads (any byte counts)."""
    prompt_profile: str
    arms: tuple[str, ...]
    reference_arm: str
    repeats: int
    schedule: str
    model: ModelProfile
    budget: Budget
    cells: tuple[PlannedCell, ...]
    analysis: AnalysisPlan
    sandbox: dict[str, Any] = Field(default_factory=dict)
    tools: dict[str, str]
    runtime: dict[str, Any] = Field(default_factory=dict)
    """A local model's runtime and weights as the plan stage found them (version and build,
    the weights' sha256, size and GGUF metadata: ``assay.local.runtime``); empty for others."""
    reproduces: Reproduction | None = None
    """Set for a reproduction check: its cells are a declared sample of that run's cells."""
    qualification: Qualification | None = Field(
        default=None, exclude_if=lambda value: value is None
    )
    """Set for a qualification run: its cells are a declared sample of the scenario's grid. Left
    out of the plan's JSON when absent, so every other run's plan keeps the hash it had before
    qualification runs existed (an authorization names that hash)."""

    model_config = Frozen.model_config | {"populate_by_name": True}

    def canonical(self) -> bytes:
        return canonical_json(self.model_dump(mode="json", by_alias=True))

    @property
    def hash(self) -> str:
        return sha256_hex(self.canonical())

    @property
    def content_hash(self) -> str:
        """Everything that shapes a cell's answer: the plan apart from its run id and which
        cells it sends (with their budget). Fresh runs of one plan, and a reproduction of some
        of a run's cells, share it; the report says whether the answers they share are
        byte-identical."""
        return sha256_hex(
            canonical_json(
                self.model_dump(
                    mode="json",
                    by_alias=True,
                    exclude={"run", "cells", "budget", "reproduces", "qualification"},
                )
            )
        )

    @property
    def preregistration(self) -> Preregistration:
        """The run's preregistration: its analysis and its repeats (both in the plan hash)."""
        return Preregistration.of(self.analysis, self.repeats)

    @property
    def sendable(self) -> tuple[PlannedCell, ...]:
        return tuple(c for c in self.cells if c.excluded is None)


def load_plan(data: bytes | str) -> Plan:
    return Plan.model_validate_json(data)

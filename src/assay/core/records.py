"""Frozen records and the closed vocabularies every stage shares.

Records are pydantic models that cannot be mutated and reject unknown fields. Vocabularies
are ``Literal`` types, so a typo in a verdict or a status is a validation error, not a new
category.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

SCHEMA_VERSION = 1

Verdict = Literal["reused", "mixed", "duplicated", "ambiguous", "rejected"]
"""Structural verdicts. ``ambiguous`` (the seed's AmbiguousStructure) and ``rejected`` are
missing evidence for the primary comparison."""

ORDINAL_VERDICTS: tuple[Verdict, ...] = ("duplicated", "mixed", "reused")
"""The primary outcome's ordinal scale, lowest first."""

CorrectnessStatus = Literal["correct", "incorrect", "evaluator-failure", "skipped"]
"""Correctness outcomes. ``evaluator-failure`` is missing evidence; ``skipped`` means the
scenario declares no correctness run for the arm."""

ORDINAL_CORRECTNESS: tuple[str, ...] = ("incorrect", "correct")

MissingState = Literal["not-run", "excluded", "halted", "no-candidate", "evaluator-failure"]
"""Why a planned cell has no outcome on a report's scale: the one vocabulary of missing
evidence. The SQL views (``outcomes.outcome``, ``cell_details.missing``), ``assay show``, the
page, the scenario tables and the plots all use these words, and every chart gives each its own
legend entry:

- ``not-run``: never sent (awaiting authorization, a paid run that ended before it, a chain step
  after a step that held no code);
- ``excluded``: the plan left it out (a request over the model's size cap);
- ``halted``: the run was stopping: a provider fault, an unproven charge or the ceiling (the
  run's report says why it stopped);
- ``no-candidate``: the model answered, but with no code to score;
- ``evaluator-failure``: the evaluator could not judge it (sandbox or infrastructure failure).

Off-scale outcomes that are not missing states keep their own words: the structural verdicts
``ambiguous`` and ``rejected``, correctness ``skipped`` (no correctness run by design) and
``rejected`` (the source gate refused the candidate)."""

MISSING_STATES: tuple[MissingState, ...] = get_args(MissingState)

ExecutionStatus = Literal[
    "completed",  # the provider answered with a completion
    "provider-error",  # the provider failed; ``halt`` says whether admission stopped
    "identity-mismatch",  # served by another provider or model than the plan pins
    "budget-halted",  # never sent: a paid run's admission was halted or its ceiling reached
    "halted",  # never sent: a free run stopped after a call failed (the next invocation sends it)
    "interrupted",  # an intent was written but no outcome: the process died mid-request
    "not-run",  # never attempted (a paid run that ended before reaching it)
    "excluded",  # excluded by the plan (for example over the request size cap)
]
SEND_REFUSED = "send-refused"
"""The cause (reason's first word) of a ``not-run`` call of a run the send stage refused this
time (a check before sending failed, its server did not start); the reason goes on with why."""

Family = Literal[
    "cosmetic",
    "architectural",
    "semantic",
    "route-view",
    "domain-rule",
    "cross-module",
    "jig-llm",
    "jig-feedback",
    "scout-platforms",
    "aisuite-agents",
    "aisuite-tracing",
    "feedparser-urls",
    "feedparser-dates",
    "slack-oauth",
    "slack-clients",
    "tweepy-models",
]

ScenarioName = Literal[
    "v1",
    "layered",
    "dose",
    "placement",
    "chain",
    "context",
    "codebase",
    "codebase-noimport",
    "codebase-near",
    "bank",
    "bank-new",
]
"""Every built-in scenario: a fixture builder realises each (``assay.fixtures.scenarios.SCENARIOS``
has one builder per name). Here so that checking params.yaml needs no builder. A researcher's
own scenarios are declared in the fixtures root instead (``assay.fixtures.declared``)."""

NAME_PATTERN = r"[A-Za-z0-9_-]+"
"""Run, model and declared scenario names: they become DVC stage names (``plan@NAME``), data
folders (``data/subjects/NAME``) and parameter paths (``runs.NAME``), where a dot would be read
as nesting and a space or slash breaks the stage name."""

StructureVersion = Literal[4, 5, 6, 7, 8]
"""Every registered structural evaluator version (``assay.structure.versions``)."""

ExtractStatus = Literal[
    "code",
    "no-code",
    "not-executed",
    "ambiguous-extraction",
    "module-changed",
    "other-file-reprinted",
    "reprint-only",
]
"""What extraction found in a response (:mod:`assay.science.extract`): one candidate, no code, no
response to extract from, several candidates that differ, or (version 3) an answer that changes
the target module it reprints, reprints another file beside its code, or only reprints the
repository (all but ``code`` are missing evidence)."""

SandboxProfile = Literal["standard", "large", "skip"]
"""How an arm's correctness runs: ``standard`` (1 MiB /tmp, 5 s), ``large`` (4 MiB /tmp,
15 s) or ``skip`` (the scenario declares no correctness run for it)."""

JsonValue = Any
"""A value that survives a JSON round trip unchanged (test inputs and expected values)."""


class Frozen(BaseModel):
    """Base of every record: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class CallKey(Frozen):
    """One provider call: a cell and its step (1 unless the cell is a chain). The one place its
    written form ``<cell id>#<step>`` (the ledger's ``key``, the simulated model's seed) is
    spelled and read: it validates from that string and serialises to it."""

    cell_id: str
    step: int = Field(ge=1)

    @model_validator(mode="before")
    @classmethod
    def _read(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        cell_id, hash_sign, step = value.rpartition("#")
        if not (hash_sign and cell_id and step.isdigit()):
            raise ValueError(f"not a call key (<cell id>#<step>): {value!r}")
        return {"cell_id": cell_id, "step": int(step)}

    @model_serializer
    def _written(self) -> str:
        return f"{self.cell_id}#{self.step}"

    def __str__(self) -> str:
        return self._written()


class Usage(Frozen):
    # tokens a provider reported for one call (None: not reported); no docstring, which would
    # become the published schema's description

    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class CellKey(Frozen):
    """The key every per-call evidence row starts with: one provider call of one cell."""

    run: str
    cell_id: str
    subject: str
    arm: str
    repeat: int
    step: int

    @property
    def call(self) -> CallKey:
        return CallKey(cell_id=self.cell_id, step=self.step)

    def key(self) -> dict[str, Any]:
        """The key fields alone, to start the next stage's row for the same call."""
        return {name: getattr(self, name) for name in CellKey.model_fields}

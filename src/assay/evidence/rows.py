"""Every row type written to a Parquet table under ``data/``, one per table.

Per-call rows start with :class:`~assay.core.records.CellKey` (run, cell, subject, arm, repeat,
step), so every table joins on the same key; per-scenario rows start with ``scenario``.
"""

from __future__ import annotations

from assay.core.records import (
    CellKey,
    CorrectnessStatus,
    ExecutionStatus,
    ExtractStatus,
    Frozen,
    MissingState,
    Verdict,
)


class SubjectRow(Frozen):
    """``subjects``: one (subject, arm) of a realised scenario."""

    scenario: str
    subject: str
    family: str
    arm: str
    subject_digest: str
    arm_digest: str
    target: str
    helper: str
    helper_module: str | None
    primitives: tuple[str, ...]
    sandbox: str
    repository_bytes: int


class PromptRow(Frozen):
    """``prompts``: the blind prompt of one (subject, arm), with what it shows."""

    scenario: str
    subject: str
    arm: str
    prompt_profile: str
    prompt_digest: str
    prompt: str
    instruction: str
    target: str
    files_json: str
    """The arm's files as canonical JSON ``{path: text}``: exactly what the prompt shows."""


class CallRecord(CellKey):
    """``cells``: what happened to one provider call."""

    status: ExecutionStatus
    reason: str | None = None
    halt: bool = False
    reservation_usd: float = 0.0
    price_cap_prompt_usd_per_m: float = 0.0
    price_cap_completion_usd_per_m: float = 0.0
    """The plan's price caps in force for this call (USD per million tokens)."""
    cost_usd: float | None = None
    """Provider-reported cost; ``None`` when nothing was reported."""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    generation_id: str | None = None
    served_model: str | None = None
    served_provider: str | None = None
    finish_reason: str | None = None
    detail: str | None = None
    """Human-readable cause (the provider's error message, shortened and redacted)."""
    no_charge_proven: bool = False
    latency_seconds: float | None = None
    prompt_digest: str | None = None
    """sha256 of the prompt sent (every step of a chain); its text is the run's
    ``prompt_texts`` row of that digest, stored before the ledger's intent was written."""
    response_digest: str | None = None
    text: str | None = None
    attempts: int = 0
    """Requests sent for this call (a free run retries failures on later invocations)."""


class SentCall(CallRecord):
    """One call as the ``send`` stage decided it, in its run's receipt: the ``cells`` row
    without its text, which stays in the run's ledger under ``text_digest``."""

    text_digest: str | None = None


class SendReceipt(Frozen):
    """``data/send/<run>/receipt.json``: what the ``send`` stage did for one run. The execute
    stage turns it, with the responses in the ledger, into the run's ``cells`` table."""

    run: str
    plan_hash: str
    ledger_root: str
    """``params.yaml: ledger_root`` when the calls were decided: the ledger holding their texts."""
    calls: tuple[SentCall, ...]
    deferred: bool = False
    """The ``dvc repro`` that ran the send stage asked for other runs only
    (``assay.pipeline.requested``): nothing was decided for this run here, and its execute
    stage sends it (no calls)."""
    refused: str | None = None
    """Why nothing was sent for this run (a check before sending failed, its server did not
    start: one line); the other runs went on, and the next ``dvc repro`` tries it again."""


class SentPromptRow(Frozen):
    """``prompt_texts``: one prompt a run sent, stored once under its sha256 (content-addressed).
    Every call's ``prompt_digest`` (``cells``) names its row; the ``sent_prompts`` view joins
    them. Chain steps 2-5 are rendered during execution from earlier answers: this is the only
    record of what they showed the model."""

    run: str
    prompt_digest: str
    """sha256 of the prompt's UTF-8 bytes: the ledger intent's ``request_digest``."""
    prompt: str


class CandidateRow(CellKey):
    """``candidates``: the code extracted from one call's response, or why there is none."""

    execution_status: str
    extract_status: ExtractStatus
    source: str | None
    extraction_version: int
    """The extraction rules that produced it (``assay.science.extract``; ``evaluators.extraction``)."""

    @property
    def missing_reason(self) -> str:
        return missing_reason(self.execution_status, self.extract_status)


def missing_reason(execution_status: str, extract_status: str) -> str:
    """Why a call has no candidate: the execution status, else (completed) the extraction's."""
    return extract_status if execution_status == "completed" else execution_status


MISSING_STATE_OF: dict[str, MissingState] = {
    "not-run": "not-run",
    "not-executed": "not-run",
    "excluded": "excluded",
    "budget-halted": "halted",
    "halted": "halted",
    "provider-error": "halted",
    "identity-mismatch": "halted",
    "interrupted": "halted",
    "no-code": "no-candidate",
    "ambiguous-extraction": "no-candidate",
    "module-changed": "no-candidate",
    "other-file-reprinted": "no-candidate",
    "reprint-only": "no-candidate",
    "evaluator-failure": "evaluator-failure",
}
"""The missing state of every :func:`missing_reason` (an execution status other than
``completed``, or an extraction status other than ``code``) and of the correctness status
``evaluator-failure``. The report's SQL has it as the macro ``missing_state(reason)``."""


def missing_state(reason: str) -> MissingState:
    """The :data:`~assay.core.records.MissingState` of a cell that has no value, from its
    :func:`missing_reason` (or the correctness status ``evaluator-failure``)."""
    try:
        return MISSING_STATE_OF[reason]
    except KeyError:
        raise ValueError(f"no missing state for reason {reason!r}") from None


class VerdictRow(CellKey):
    """``verdicts``: the structural verdict of one candidate."""

    verdict: Verdict | None
    """``None`` when there was no candidate to score (see ``reason``)."""
    reason: str
    evaluator_version: int
    rule: str | None = None
    """The rule that decided (``assay.structure.explain.RULE_TEXT``); ``None`` when unscored."""
    helper_call_lines: tuple[int, ...] = ()
    """Lines (in the candidate) of the calls that count as the helper."""
    helper_call_positions: tuple[str, ...] = ()
    """``unconditional`` or the conditional position (``helper-in-branch`` …) of each."""
    primitive_calls: tuple[str, ...] = ()
    """The declared primitive each primitive call matched."""
    primitive_call_lines: tuple[int, ...] = ()
    same_name_call_lines: tuple[int, ...] = ()


class ExtractionVerdictRow(VerdictRow):
    """``extraction_verdicts``: the structural verdict of one extraction version's candidate
    (``candidate_versions``), under the evaluator version the reports use."""

    extraction_version: int


class CorrectnessRow(CellKey):
    """``correctness``: one candidate run in the sandbox against its task's vectors."""

    status: CorrectnessStatus | None
    """``None`` when there was nothing the evaluator could accept (see ``reason``)."""
    reason: str
    case_indexes: tuple[int, ...] = ()
    case_outcomes: tuple[str, ...] = ()
    case_exception_types: tuple[str | None, ...] = ()
    case_inputs: tuple[str, ...] = ()
    """Each case's input (the task's hidden vector) as JSON, truncated."""
    case_expected: tuple[str, ...] = ()
    """Each case's expected value as the host compared it, JSON, truncated."""
    unpublished_case_actuals: tuple[str | None, ...] = ()
    """Generated output, local evidence only (never exported): a ``wrong-value`` case's
    returned value as JSON, truncated; ``None`` for any other outcome."""
    unpublished_case_messages: tuple[str | None, ...] = ()
    """Generated output, local evidence only (never exported): an ``exception`` case's
    message, truncated; ``None`` for any other outcome."""
    image: str


class PlacementRow(CellKey):
    """Where one cell's evaluation ran: ``local`` or a Dask worker's address, and its engine.

    Provenance, kept out of the evidence rows on purpose: ``correctness.parquet`` and
    ``metrics.parquet`` are byte-identical wherever the work ran, and this table says where.
    """

    stage: str
    worker: str
    engine: str
    """The Docker engine version that ran the container (``-`` for metrics)."""


class CorrectnessVersionRow(CorrectnessRow):
    """``correctness_versions``: a correctness row with the sandbox policy version it ran under
    (the image is in the row). Every image/policy version a run was evaluated with is kept."""

    policy: str


UNPUBLISHED_COLUMNS = ("unpublished_case_actuals", "unpublished_case_messages")
"""Correctness columns holding generated values and messages: the seed publishes neither, so
exports leave them out; they exist to explain a verdict on the machine that ran it."""

PUBLISHED_CASE_COLUMNS = ("case_indexes", "case_outcomes", "case_exception_types")
"""Per case, all that leaves this machine (the HTML page, the report files, export bundles):
the case's index, its outcome and the exception type's name, as the seed keeps them. An
allow-list: a case column not named here is never published."""

LOCAL_CASE_COLUMNS = ("case_inputs", "case_expected", *UNPUBLISHED_COLUMNS)
"""Per case, local evidence only: the hidden test vector (input and expected value), the value
the candidate returned and its exception message. ``assay show`` and ``assay sql`` read them
from ``data/``; nothing published does."""


class MetricValues(Frozen):
    """One metric of one output, before and after the change: what the measure stage measures
    (``assay.metrics.Measurement``) and what the ``metrics`` table keeps of it."""

    tool: str
    tool_version: str
    metric: str
    before: float | None
    after: float | None
    delta: float | None
    missing_reason: str | None


class MetricRow(MetricValues, CellKey):  # in this order, the key's columns come first
    """``metrics``: one metric of one output, before and after the change (long form: a new
    metric adds rows, never columns)."""


class RunRow(Frozen):
    """``runs``: one planned run, read from its plan and authorization."""

    run: str
    scenario: str
    model: str
    provider: str
    simulated: bool
    local_model: str | None = None
    """A real local model (``provider: local``), described: name, size, weights, runtime."""
    answers_source: str | None = None
    """Where an ``inspect-log`` run's answers came from, described: the Inspect log's path and
    sha256, the task and the model Inspect named (assay did not control their spend)."""
    qualification: str | None = None
    """A qualification run of its route (``runs.RUN.qualifies``), described: the sample of the
    scenario's cells it sends; ``None`` for every other run."""
    plan_content: str = ""
    """The plan's hash apart from its run id (``Plan.content_hash``): runs sharing it are fresh
    runs of one plan."""
    repeats: int
    arms: tuple[str, ...]
    reference_arm: str
    alpha: float
    minimum_subjects: int
    plan_hash: str
    authorization: str | None
    cells: int
    requests: int
    admitted_requests: int
    """Requests the ceiling admits (all of them for a free plan)."""
    worst_case_usd: float
    expected_usd: float = 0.0
    """The plan's expected spend from its prompts' sizes at the price caps (an estimate)."""
    preregistered_structure_evaluator: int
    preregistered_extraction: int

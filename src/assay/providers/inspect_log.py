"""``provider: inspect-log``: a run whose answers are read from an Inspect eval log.

The answers were made anywhere Inspect runs (``inspect eval assay/<scenario> --model …``, the
task of :mod:`assay.inspect.tasks`); assay sends nothing, so the run is free and needs no
authorization, and assay did not control what the answers cost. Everything after the answers
(the ledger, extraction, scoring, metrics, reports, export) is as for any run.

- **Planned like any run.** The plan binds the log (:class:`LogSource`, the plan's
  ``runtime``): its path, its sha256, the task and model Inspect named, when it ran, the
  generation settings it was given, the prefill its samples share. The log lives in the
  ``inspect_logs`` folder, a dependency of every plan, so editing it re-plans the run; a run
  executed under another log is a changed plan, and a free run's changed plan reads its answers
  again.
- **The whole log is matched with the plan first** (:func:`match`). A sample is one (subject,
  arm) prompt: its id is the prompt's sha256 (the plan's ``prompt_digest``) and its epoch the
  repeat. A sample missing, extra (no planned prompt has its id, an epoch beyond the plan's
  repeats, a cell the plan excludes), duplicated (the same id and epoch twice), whose prompt
  differs from its id, or whose input is not the prompt as assay sends it, is named with the
  cell it would be, and nothing is read from the log: every call is refused
  (``send-refused``), so nothing is scored from a log that does not match. So is a log whose
  model is not the profile's ``model``, or which changed since its plan was made.
- **Each call's answer** is then the sample's: a completion, or, for a sample Inspect recorded an
  error or a limit for, or whose completion is empty, ``provider-error`` with the reason
  ``inspect-error`` or ``empty-completion`` (missing evidence, as any provider's failure). A
  failure is never a halt: the answers are independent and nothing is spent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from assay.core.digest import sha256_file, sha256_hex
from assay.core.errors import InputError
from assay.core.records import CallKey, Frozen, Usage
from assay.evidence.plan import Plan, PlannedCell
from assay.inspect.samples import LoggedSample
from assay.providers.base import ModelProfile, ProviderRequest, ProviderResult

SERVED_BY = "inspect-log"
"""``served_provider`` of every answer read from a log."""

SHOWN_PROBLEMS = 12
"""A refusal names this many problems and counts the rest."""


class InspectLogRefused(InputError):
    """The log does not match the run's plan: nothing is read from it."""


class LogSource(Frozen):
    """What a plan binds of the log its answers come from (its ``runtime``)."""

    answers: Literal["inspect-log"] = "inspect-log"
    log: str
    """The log's path, relative to the repository (the profile's ``log``)."""
    log_sha256: str = Field(pattern="^[0-9a-f]{64}$")
    task: str
    model: str
    """The model Inspect named (``inspect eval --model``)."""
    eval_id: str
    created: str
    status: str
    inspect_version: str | None = None
    epochs: int | None = None
    samples: int
    prefills: tuple[str, ...] = ()
    """The distinct prefills its samples' inputs end with (none: plain chat)."""
    generate_config: dict[str, Any] = Field(default_factory=dict)

    @property
    def prefill(self) -> str:
        """The prefill every sample continued ("" for none, or when they differ)."""
        return self.prefills[0] if len(self.prefills) == 1 else ""


def log_path(profile: ModelProfile) -> Path:
    if profile.log is None:
        raise ValueError(f"{profile.model}: an inspect-log profile needs its log")
    return Path(profile.log)


def log_source(profile: ModelProfile) -> LogSource:
    """The log an inspect-log profile names, as its plan binds it (reads the whole log)."""
    from assay.inspect.samples import read_log

    path = log_path(profile)
    found, samples = read_log(path)
    return LogSource(
        log=path.as_posix(),
        log_sha256=sha256_file(path),
        task=found.task,
        model=found.model,
        eval_id=found.eval_id,
        created=found.created,
        status=found.status,
        inspect_version=found.inspect_version,
        epochs=found.epochs,
        samples=len(samples),
        prefills=tuple(sorted({s.prefill for s in samples if s.prefill})),
        generate_config=found.generate_config,
    )


def bound_source(plan: Plan) -> LogSource:
    return LogSource.model_validate(plan.runtime)


class Matched(Frozen):
    """A log matched with a plan: each planned call's answer, or why nothing may be read."""

    answers: dict[CallKey, ProviderResult] = Field(default_factory=dict)
    problems: tuple[str, ...] = ()


def _sample_name(sample_id: str, epoch: int, cell: PlannedCell | None = None) -> str:
    where = f" (cell {cell.subject}/{cell.arm}/r{epoch})" if cell is not None else ""
    return f"sample {sample_id} epoch {epoch}{where}"


def result(sample: LoggedSample) -> ProviderResult:
    """The answer of one matched sample."""
    observed: dict[str, Any] = {
        "usage": Usage(
            prompt_tokens=sample.prompt_tokens, completion_tokens=sample.completion_tokens
        ),
        "raw": sample.output_json.encode(),
        "generation_id": sample.uuid,
        "served_model": sample.served_model,
        "served_provider": SERVED_BY,
        "finish_reason": sample.stop_reason,
        "latency_seconds": sample.seconds or 0.0,
    }
    if sample.error is not None:
        return ProviderResult(
            status="provider-error", reason="inspect-error", detail=sample.error, **observed
        )
    if not sample.completion.strip():
        return ProviderResult(
            status="provider-error",
            reason="empty-completion",
            detail="the sample's completion is empty",
            text=sample.answer,
            **observed,
        )
    return ProviderResult(status="completed", text=sample.answer, **observed)


def match(plan: Plan, source: LogSource, samples: Sequence[LoggedSample]) -> Matched:
    """Each planned call's answer from ``samples`` (in the log's order), or every problem,
    named, when the log and the plan disagree anywhere."""
    problems: list[str] = []
    if source.model != plan.model.model:
        problems.append(
            f"the log's model is {source.model!r}, the profile's model {plan.model.model!r} "
            "(declare the model Inspect named)"
        )
    if len(source.prefills) > 1:
        problems.append(
            f"its samples continue {len(source.prefills)} different prefills; one run has one "
            "prompting mode"
        )
    chains = [cell for cell in plan.cells if cell.steps > 1]
    if chains:
        problems.append(
            f"the plan's cells are {chains[0].steps}-step chains, whose later prompts only assay "
            "can build; a log holds one answer per prompt"
        )
    cells = {(cell.prompt_digest, cell.repeat): cell for cell in plan.cells}
    if len(cells) < len(plan.cells):
        problems.append(
            "two planned cells ask the same prompt at one repeat, so no sample id can tell "
            "their answers apart"
        )
    planned_digests = {cell.prompt_digest for cell in plan.cells}
    counts = Counter((sample.id, sample.epoch) for sample in samples)
    found: dict[tuple[str, int], LoggedSample | None] = {}
    for sample in samples:
        key = (sample.id, sample.epoch)
        cell = cells.get(key)
        name = _sample_name(sample.id, sample.epoch, cell)
        if counts[key] > 1:
            if key not in found:
                problems.append(
                    f"{name}: duplicated ({counts[key]} samples with this id and epoch)"
                )
                found[key] = None
            continue
        found[key] = sample
        problem = _sample_problem(plan, sample, cell, planned_digests)
        if problem is not None:
            problems.append(f"{name}: {problem}")
    for cell in plan.sendable:
        if (cell.prompt_digest, cell.repeat) not in found:
            name = _sample_name(cell.prompt_digest, cell.repeat, cell)
            problems.append(f"{name}: missing from the log")
    if problems:
        return Matched(problems=tuple(problems))
    answers = {}
    for cell in plan.sendable:
        matched = found[(cell.prompt_digest, cell.repeat)]
        assert matched is not None  # a duplicated sample is a problem
        answers[cell.call(1)] = result(matched)
    return Matched(answers=answers)


def _sample_problem(
    plan: Plan, sample: LoggedSample, cell: PlannedCell | None, planned: set[str]
) -> str | None:
    """Why one sample, unique by id and epoch, cannot answer a planned call (``None``: it can)."""
    if sample.id not in planned:
        altered = sample.prompt is not None and sha256_hex(sample.prompt) != sample.id
        return "extra: no planned prompt has this digest" + (
            " (and its prompt's sha256 is not its id either)" if altered else ""
        )
    if cell is None:
        return f"extra: the plan has {plan.repeats} repeats, so no epoch {sample.epoch}"
    if cell.excluded is not None:
        return f"extra: the plan excludes this cell ({cell.excluded})"
    if sample.input_problem is not None:
        return sample.input_problem
    digest = sha256_hex(sample.prompt or "")
    if digest != sample.id:
        return (
            f"its prompt differs from the plan's: the prompt's sha256 is {digest}, not its id "
            "(the prompt asked was altered)"
        )
    return None


def refusal(source: LogSource, problems: Sequence[str]) -> str:
    """What a refused log's run says, one problem a line (the first :data:`SHOWN_PROBLEMS`)."""
    shown = list(problems[:SHOWN_PROBLEMS])
    if len(problems) > SHOWN_PROBLEMS:
        shown.append(f"… and {len(problems) - SHOWN_PROBLEMS} more")
    count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
    return (
        f"Inspect log {source.log}: {count}, so nothing was read from it and nothing is scored "
        "(a log is read only when every sample matches the plan); fix or replace the log "
        "(a changed log re-plans the run), then `uv run dvc repro`:\n" + "\n".join(shown)
    )


class InspectLogProvider:
    """Answers each call with its sample's answer; sends nothing."""

    def __init__(self, answers: Mapping[CallKey, ProviderResult]) -> None:
        self.answers = dict(answers)

    def complete(self, request: ProviderRequest) -> ProviderResult:
        found = self.answers.get(request.key)
        if found is None:  # the matching gave every planned call an answer
            return ProviderResult(
                status="provider-error",
                reason="inspect-log-miss",
                detail=f"no sample answers {request.key}",
                served_provider=SERVED_BY,
            )
        return found


def provider_for(plan: Plan) -> InspectLogProvider:
    """The provider of an inspect-log run: its log checked against the plan's binding, read
    and matched whole; :class:`InspectLogRefused` names every problem."""
    from assay.inspect.samples import read_log

    source = bound_source(plan)
    path = Path(source.log)
    actual = sha256_file(path) if path.is_file() else None
    if actual != source.log_sha256:
        now = "is gone" if actual is None else f"has sha256 {actual}"
        raise InspectLogRefused(
            f"Inspect log {source.log} {now}, not the {source.log_sha256} its plan bound: run "
            "`uv run dvc repro` to plan the run again"
        )
    _, samples = read_log(path)
    matched = match(plan, source, samples)
    if matched.problems:
        raise InspectLogRefused(refusal(source, matched.problems))
    return InspectLogProvider(matched.answers)

"""One run as an Inspect eval log: ``inspect_ai``'s own records (``EvalLog``, ``EvalSample``,
``Score``), written by ``inspect_ai.log.write_eval_log``.

The log of a run (docs/inspect.md, "Logs", says what every field holds):

- one sample per planned cell: its id the sha256 of the cell's first prompt as the plan records
  it (``prompt_digest``), its epoch the repeat; its input the messages the provider received for
  that prompt, its messages every step's request and answer in order (a chain cell's five
  calls), its output the last answer, exactly as recorded;
- two scores per sample: ``structure`` (the verdict or the missing state, the evaluator's
  explanation, the extracted candidate as its answer) and ``correctness`` (the outcome and each
  case's index, outcome and exception type name: only what the page publishes); a chain cell's
  scores hold one value per step;
- the sample's metadata: subject, arm, repeat, steps, prompt and response digests, cost, plan
  hash, evaluator and extraction versions, prompting mode, whether the model is simulated, and
  each call's status and times;
- the eval's metadata: the plan, the model and its route, the prompting mode, the versions; its
  results the reuse rate per arm (per arm and step for a chain), and the correct rate per arm.

Every time and id comes from the evidence (the ledger's times, digests of the plan and the
cells), so the same evidence gives the same bytes. The JSON format is used because an ``.eval``
file is a zip whose members Python stamps with the time of writing.
"""

from __future__ import annotations

from datetime import datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalPlan,
    EvalPlanStep,
    EvalSpec,
    EvalStats,
    EvalStatus,
    write_eval_log,
)
from inspect_ai.model import GenerateConfig

from assay.inspect.log_evidence import RunEvidence
from assay.inspect.log_samples import model_name, sample, shared_value, short_id, usage, utc
from assay.inspect.log_scores import results

NEVER = 0.0
"""The time a run that sent nothing is stamped with (the Unix epoch, 1970-01-01T00:00:00Z):
Inspect requires a creation time, and such a run has none of its own."""


def task_name(evidence: RunEvidence) -> str:
    """``assay/<scenario>``; a simulated run's says so."""
    name = f"assay/{evidence.plan.scenario}"
    return f"{name} [SIMULATED MODEL]" if evidence.labels.simulated else name


def log_file_name(log: EvalLog, run: str) -> str:
    """Inspect's own file naming, ``<created>_<task>_<id>.json`` (its log listing requires the
    leading time), with the run id as the task part."""
    created = datetime.fromisoformat(log.eval.created).strftime("%Y-%m-%dT%H-%M-%S+00-00")
    return f"{created}_{run}_{log.eval.eval_id}.json"


def stopped(evidence: RunEvidence) -> str | None:
    """Why the run is short of answers, in words (``None``: every call was decided)."""
    statuses = [call.record for cell in evidence.cells for call in cell.calls]
    if statuses and all(r.status in ("not-run", "excluded") for r in statuses):
        reasons = sorted({r.status_reason or r.status for r in statuses})
        return "nothing was sent: " + ", ".join(reasons)
    halting = next((r for r in statuses if r.status in ("budget-halted", "halted")), None)
    if halting is not None:
        return f"halted: {halting.status_reason or halting.status} from {halting.cell_id}"
    return None


def eval_metadata(evidence: RunEvidence) -> dict[str, Any]:
    plan, labels = evidence.plan, evidence.labels
    model = plan.model
    records = [call for cell in evidence.cells for call in cell.calls]
    return {
        "run": plan.run,
        "scenario": plan.scenario,
        "simulated": labels.simulated,
        "kind": labels.kind,
        "prompting_mode": labels.mode,
        "plan_hash": labels.plan_hash,
        "plan_content_hash": labels.plan_content,
        "authorization": labels.authorization,
        "model": {
            "name": model.model,
            "provider": model.provider,
            "route": model.provider_pin,
            "base_url": model.base_url,
            "local_model": labels.local_model,
        },
        "schedule": plan.schedule,
        "repeats": plan.repeats,
        "arms": list(plan.arms),
        "reference_arm": plan.reference_arm,
        "versions": {
            "structure_evaluator": shared_value(c.record.evaluator_version for c in records),
            "extraction": shared_value(c.facts.extraction_version for c in records),
            "preregistered_structure_evaluator": labels.preregistered_structure_evaluator,
            "preregistered_extraction": labels.preregistered_extraction,
            "analysis": plan.analysis.method,
            "tools": plan.tools,
        },
        "sample_id": "sha256 of the cell's first prompt (the plan's prompt_digest); epoch: repeat",
        "stopped": stopped(evidence),
    }


def generate_config(evidence: RunEvidence) -> GenerateConfig:
    model = evidence.plan.model
    local = model.local
    return GenerateConfig(
        max_tokens=model.max_output_tokens,
        temperature=model.temperature,
        top_p=local.top_p if local else None,
        top_k=local.top_k if local else None,
        stop_seqs=list(local.stop) if local and local.stop else None,
    )


def outcome(evidence: RunEvidence) -> tuple[EvalStatus, EvalError | None]:
    """``cancelled`` for a run that sent nothing, ``error`` (saying why) for one that stopped
    short of answers, else ``success``."""
    sent = any(c.times.sent is not None for cell in evidence.cells for c in cell.calls)
    if evidence.began is None or not sent:
        return "cancelled", None
    why = stopped(evidence)
    if why is not None:
        return "error", EvalError(message=why, traceback="", traceback_ansi="")
    return "success", None


def eval_log(evidence: RunEvidence) -> EvalLog:
    """The Inspect eval log of one run."""
    plan = evidence.plan
    model = model_name(evidence)
    samples = [sample(evidence, cell) for cell in evidence.cells]
    ids = list(dict.fromkeys(c.planned.prompt_digest for c in evidence.cells))
    sent = [c.times.sent for cell in evidence.cells for c in cell.calls if c.times.sent]
    answered = [c.times.answered for cell in evidence.cells for c in cell.calls if c.times.answered]
    status, error = outcome(evidence)
    began = evidence.began
    return EvalLog(
        status=status,
        eval=EvalSpec(
            eval_id=short_id(plan.hash, "eval"),
            run_id=short_id(plan.hash, "run"),
            created=utc(began if began is not None else NEVER),
            task=task_name(evidence),
            # one per run: the viewer hides a log whose task id a later log shares (a retry)
            task_id=short_id(plan.hash, "task"),
            task_display_name=plan.run,
            tags=["simulated" if evidence.labels.simulated else evidence.labels.kind],
            dataset=EvalDataset(
                name=plan.scenario, samples=len(ids), sample_ids=ids, shuffled=False
            ),
            model=model,
            model_generate_config=generate_config(evidence),
            model_base_url=plan.model.base_url,
            config=EvalConfig(epochs=plan.repeats),
            packages={"inspect_ai": version("inspect_ai")},
            metadata=eval_metadata(evidence),
        ),
        plan=EvalPlan(
            name="assay",
            steps=[
                EvalPlanStep(
                    solver="assay send", params={"schedule": plan.schedule, "plan": plan.hash}
                )
            ],
            config=generate_config(evidence),
        ),
        results=results(evidence),
        stats=EvalStats(
            started_at=utc(min(sent)) if sent else "",
            completed_at=utc(max(answered)) if answered else "",
            model_usage={model: usage(c for cell in evidence.cells for c in cell.calls)},
        ),
        error=error,
        samples=samples,
    )


def write_log(evidence: RunEvidence, folder: Path) -> Path:
    """Write the run's log into ``folder`` through ``inspect_ai.log.write_eval_log``."""
    log = eval_log(evidence)
    path = folder / log_file_name(log, evidence.plan.run)
    write_eval_log(log, path, format="json")
    return path

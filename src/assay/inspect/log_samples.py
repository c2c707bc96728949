"""One cell as an Inspect sample: the messages as the provider received them, the answers as
recorded, the two scores (:mod:`assay.inspect.log_scores`), the cell's metadata and times.

The sample's id is the sha256 of the cell's first prompt as the plan records it
(``prompt_digest``), its epoch the repeat. ``input`` is the first call's request messages
(:func:`assay.providers.factory.request_messages`); ``messages`` every call's request and
answer in order (a chain cell's five calls: each request is that call's whole prompt, built from
the earlier answers, and was sent alone); ``output`` the last answer. An answer is the reply as
recorded: with a prefilled answer (``chat-prefill``) it begins with the prefix the request's
last message holds. Times are the ledger's (sent: the call's latest intent; answered: its
outcome); every id is derived from the plan hash and the cell.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from inspect_ai.log import EvalSample
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
    StopReason,
)

from assay.inspect.log_evidence import CallEvidence, CellEvidence, Message, RunEvidence
from assay.inspect.log_scores import scores

STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "max_tokens",
    "content_filter": "content_filter",
}
"""An OpenAI-style ``finish_reason`` as Inspect's stop reason (any other: ``unknown``)."""


def utc(at: float) -> str:
    """Unix seconds as Inspect's UTC time text."""
    return datetime.fromtimestamp(at, UTC).isoformat()


def maybe_utc(at: float | None) -> str | None:
    return None if at is None else utc(at)


def short_id(*parts: str) -> str:
    """A stable id of 22 characters (the length of Inspect's own ids) from ``parts``."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:22]


def model_name(evidence: RunEvidence) -> str:
    """``<provider>/<model>``, as Inspect names models."""
    return f"{evidence.plan.model.provider}/{evidence.plan.model.model}"


def chat_message(message: Message, message_id: str) -> ChatMessage:
    """A request message as Inspect's record (a prefilled assistant turn is input too)."""
    if message.role == "assistant":
        return ChatMessageAssistant(content=message.content, id=message_id, source="input")
    if message.role == "system":
        return ChatMessageSystem(content=message.content, id=message_id, source="input")
    return ChatMessageUser(content=message.content, id=message_id, source="input")


def request(call: CallEvidence) -> list[ChatMessage]:
    key = f"{call.record.cell_id}#{call.record.step}"
    return [chat_message(m, f"{key}:{n}") for n, m in enumerate(call.messages)]


def answer(call: CallEvidence, model: str) -> ChatMessageAssistant | None:
    response = call.record.response
    if response is None:
        return None
    key = f"{call.record.cell_id}#{call.record.step}"
    served = call.facts.served_model or model
    return ChatMessageAssistant(
        content=response, id=f"{key}:answer", source="generate", model=served
    )


def usage(calls: Iterable[CallEvidence]) -> ModelUsage:
    total = ModelUsage()
    for call in calls:
        prompt, completion = call.record.tokens
        total = total + ModelUsage(
            input_tokens=prompt or 0,
            output_tokens=completion or 0,
            total_tokens=(prompt or 0) + (completion or 0),
            total_cost=call.record.cost_usd,
        )
    return total


def last_answered(cell: CellEvidence) -> CallEvidence | None:
    answered = [c for c in cell.calls if c.record.response is not None]
    return answered[-1] if answered else None


def output(cell: CellEvidence, model: str) -> ModelOutput:
    """The cell's last answer, or (none answered) its last call's status as the error."""
    call = last_answered(cell)
    if call is None:
        last = cell.calls[-1].record if cell.calls else None
        why = "no call" if last is None else f"{last.status}: {last.status_reason or '-'}"
        return ModelOutput(model=model, error=why)
    message = answer(call, model)
    assert message is not None
    return ModelOutput(
        model=message.model or model,
        choices=[
            ChatCompletionChoice(
                message=message,
                stop_reason=STOP_REASONS.get(call.facts.finish_reason or "", "unknown"),
            )
        ],
        completion=message.text,
        usage=usage([call]),
        time=call.facts.latency_seconds,
        response_id=call.facts.generation_id,
    )


def call_metadata(call: CallEvidence) -> dict[str, Any]:
    r, f = call.record, call.facts
    return {
        "step": r.step,
        "status": r.status,
        "status_reason": r.status_reason,
        "detail": r.detail,
        "prompt_digest": r.prompt_digest,
        "response_digest": f.response_digest,
        "cost_usd": r.cost_usd,
        "reservation_usd": r.reservation_usd,
        "prompt_tokens": r.tokens[0],
        "completion_tokens": r.tokens[1],
        "served_model": f.served_model,
        "served_provider": f.served_provider,
        "generation_id": f.generation_id,
        "finish_reason": f.finish_reason,
        "extract_status": r.extract_status,
        "sent_at": maybe_utc(call.times.sent),
        "answered_at": maybe_utc(call.times.answered),
    }


def shared_value(values: Iterable[Any]) -> Any:
    """The value all calls share (``None`` when none has one; a list when they differ)."""
    seen = list(dict.fromkeys(v for v in values if v is not None))
    return seen[0] if len(seen) == 1 else (seen or None)


def sample_metadata(evidence: RunEvidence, cell: CellEvidence) -> dict[str, Any]:
    calls = cell.calls
    costs = [c.record.cost_usd for c in calls if c.record.cost_usd is not None]
    last = last_answered(cell)
    return {
        "run": evidence.plan.run,
        "cell_id": cell.planned.cell_id,
        "subject": cell.planned.subject,
        "arm": cell.planned.arm,
        "repeat": cell.planned.repeat,
        "steps": cell.planned.steps,
        "excluded": cell.planned.excluded,
        "prompt_digest": cell.planned.prompt_digest,
        "response_digest": last.facts.response_digest if last else None,
        "cost_usd": sum(costs) if costs else None,
        "reservation_usd": sum(c.record.reservation_usd or 0.0 for c in calls),
        "plan_hash": evidence.labels.plan_hash,
        "evaluator_version": shared_value(c.record.evaluator_version for c in calls),
        "extraction_version": shared_value(c.facts.extraction_version for c in calls),
        "prompting_mode": evidence.labels.mode,
        "simulated": evidence.labels.simulated,
        "model": evidence.labels.model,
        "calls": [call_metadata(c) for c in calls],
    }


def sample(evidence: RunEvidence, cell: CellEvidence) -> EvalSample:
    model = model_name(evidence)
    messages: list[ChatMessage] = []
    for call in cell.calls:
        messages += request(call)
        reply = answer(call, model)
        if reply is not None:
            messages.append(reply)
    sent = [c.times.sent for c in cell.calls if c.times.sent is not None]
    answered = [c.times.answered for c in cell.calls if c.times.answered is not None]
    first = request(cell.calls[0]) if cell.calls else []
    return EvalSample(
        id=cell.planned.prompt_digest,
        epoch=cell.planned.repeat,
        input=first or "",
        target="",
        messages=messages,
        output=output(cell, model),
        scores=scores(cell),
        metadata=sample_metadata(evidence, cell),
        model_usage={model: usage(cell.calls)} if cell.calls else {},
        started_at=utc(min(sent)) if sent else None,
        completed_at=utc(max(answered)) if answered else None,
        total_time=round(max(answered) - min(sent), 6) if sent and answered else None,
        uuid=short_id(evidence.plan.hash, cell.planned.cell_id),
    )

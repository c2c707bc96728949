"""The one decision table: every way a real provider call can fail, and what it means for the run.

An adapter describes what it saw as a ``FailureKind`` (plus the response fields it could read);
``decide`` turns that into the ``ProviderResult`` the execute stage records. Nothing else
decides a cell status or a halt.

The rule (the seed's "Provider and budget" section): any failure whose no-charge status cannot
be proven halts budget admission, and every later cell becomes ``budget-halted``. A halt is
lifted only by a proof of no charge:

- *by construction*: the request was over the profile's byte cap and never sent (the plan
  excludes such cells; the adapter refuses them again), or the connection was never established, so not one byte of the request
  left this process (no proxy is used: ``trust_env`` is off). httpx raises ``ConnectError`` /
  ``ConnectTimeout`` only while opening the TCP (and TLS) connection, before it writes the
  request line. Such a cell is ``provider-error`` and the run continues.
- *by the provider's own accounting*: OpenRouter's free ``GET /generation?id=`` reports a
  total cost of exactly zero for this generation id (and the key is not BYOK, whose upstream
  charge OpenRouter does not see). Only kinds whose response arrived complete are
  ``provable``: after a timeout, a reset or a cut body the model may still be running and be
  billed later, so an early zero proves nothing.

Everything else halts: HTTP 4xx (billing of requests rejected before routing is not
documented), 429, 5xx, a redirect (following it would send the request twice), resets,
read/write timeouts, bodies cut short, oversize or unreadable, error bodies behind HTTP 200,
empty completions, content filtering, identity mismatches, a completed OpenRouter response
that reports no cost, and billing anomalies (a completion charged above its reservation or the
price caps, or with more tokens than ``max_tokens`` or the context limit allow).
"""

from __future__ import annotations

from typing import Any, Literal

from assay.core.records import ExecutionStatus, Frozen
from assay.providers.base import ProviderResult

FailureKind = Literal[
    "request-too-large",
    "connect-refused",
    "connect-error",
    "connect-timeout",
    "write-error",
    "write-timeout",
    "read-timeout",
    "connection-reset",
    "closed-before-response",
    "closed-mid-body",
    "transport-error",
    "response-too-large",
    "http-error",
    "malformed-json",
    "truncated-json",
    "malformed-response",
    "error-body",
    "choice-error",
    "content-filter-error",
    "content-filtered",
    "empty-completion",
    "identity-mismatch",
    "cost-unreported",
    "cost-above-reservation",
    "completion-over-max",
    "prompt-over-context",
    "price-above-caps",
]


class Rule(Frozen):
    status: ExecutionStatus
    halts: bool
    """Whether admission stops when no proof of no charge is available."""
    free: bool = False
    """No charge by construction: nothing was sent."""
    provable: bool = False
    """A zero-cost generation record may lift the halt (the response arrived complete)."""
    meaning: str


def _free(meaning: str) -> Rule:
    return Rule(status="provider-error", halts=False, free=True, meaning=meaning)


def _halts(meaning: str) -> Rule:
    return Rule(status="provider-error", halts=True, meaning=meaning)


def _halts_unless_proven(meaning: str) -> Rule:
    return Rule(status="provider-error", halts=True, provable=True, meaning=meaning)


def _anomaly(meaning: str) -> Rule:
    """A completed answer whose charge breaks the plan's bounds: kept as evidence, but admission
    stops, as for any charge the plan cannot bound."""
    return Rule(status="completed", halts=True, meaning=meaning)


RULES: dict[FailureKind, Rule] = {
    "request-too-large": Rule(
        status="excluded",
        halts=False,
        free=True,
        meaning="the request exceeds the profile's request_bytes_cap; it was not sent",
    ),
    "connect-refused": _free("connection refused; no request bytes were sent"),
    "connect-error": _free("could not connect; no request bytes were sent"),
    "connect-timeout": _free("connect timed out; no request bytes were sent"),
    "write-error": _halts("the connection failed while sending the request"),
    "write-timeout": _halts("sending the request timed out"),
    "read-timeout": _halts("no response within the read timeout"),
    "connection-reset": _halts("the connection was reset"),
    "closed-before-response": _halts("the server closed the connection without a response"),
    "closed-mid-body": _halts("the connection closed before the body ended"),
    "transport-error": _halts("another transport failure"),
    "response-too-large": _halts("the response body exceeded the byte cap"),
    "http-error": _halts_unless_proven("a non-200 HTTP status"),
    "malformed-json": _halts_unless_proven("the body is not JSON"),
    "truncated-json": _halts_unless_proven("the JSON body ends early"),
    "malformed-response": _halts_unless_proven("JSON without the chat-completion shape"),
    "error-body": _halts_unless_proven("HTTP 200 whose body carries an error"),
    "choice-error": _halts_unless_proven('a choice with finish_reason "error" or its own error'),
    "content-filter-error": _halts_unless_proven("the content filter reported an error (Azure)"),
    "content-filtered": _halts_unless_proven("the completion was withheld by a content filter"),
    "empty-completion": _halts_unless_proven("the completion is empty"),
    "identity-mismatch": Rule(
        status="identity-mismatch",
        halts=True,
        meaning="served by another provider or model than the profile pins",
    ),
    "cost-unreported": Rule(
        status="completed",
        halts=True,
        meaning="a completion whose response reports no cost, so spend is unknown",
    ),
    # billing anomalies: the answer arrived, but the charge is outside what the plan bounded
    "cost-above-reservation": _anomaly(
        "billing anomaly: the provider reported a cost above the call's reservation, so the "
        "ceiling no longer bounds spend"
    ),
    "completion-over-max": _anomaly(
        "billing anomaly: more completion tokens than max_tokens allows (the route ignores "
        "max_tokens)"
    ),
    "prompt-over-context": _anomaly(
        "billing anomaly: more prompt tokens than the profile's context limit"
    ),
    "price-above-caps": _anomaly(
        "billing anomaly: the reported cost is above what the price caps allow for the tokens "
        "reported (the route served above max_price)"
    ),
}

NO_CHARGE_SUFFIX = "; no-charge-proven"


def decide(
    kind: FailureKind,
    *,
    reason: str | None = None,
    detail: str | None = None,
    proof: str | None = None,
    **observed: Any,
) -> ProviderResult:
    """The result for one failure. ``reason`` refines the kind (``http-429``); ``proof`` is the
    evidence of no charge, used only where the rule allows it; ``observed`` are the response
    fields the adapter could read (raw body, tokens, cost, generation id, served identity)."""
    rule = RULES[kind]
    proven = rule.free or (rule.provable and proof is not None)
    cause = reason or kind
    explanation = [rule.meaning]
    if detail:
        explanation.append(detail)
    if proven and proof:
        explanation.append(proof)
    return ProviderResult(
        status=rule.status,
        reason=cause + NO_CHARGE_SUFFIX if proven else cause,
        halt=rule.halts and not proven,
        detail=": ".join(explanation),
        no_charge_proven=proven,
        **observed,
    )

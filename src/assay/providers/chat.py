"""The chat-completions call every real adapter shares; adapters override a few hooks.

``complete`` sends one request and reads the answer in a fixed order, the first finding wins:

1. transport failure (``http.exchange``)      5. a choice with ``finish_reason: "error"``
2. non-200 status                                 or its own ``error``
3. body not JSON / cut short / wrong shape     6. identity (model, pinned provider)
4. a top-level ``error`` (HTTP 200 included)   7. content-filter error, filtered completion
                                                8. empty completion
                                                9. cost not reported (adapters that report it)
                                               10. billing anomaly (cost above the reservation
                                                   or the caps, tokens above the limits)

The finding goes through ``outcomes.decide``; a provable failure with a generation id first
asks the adapter's ``prove_no_charge`` hook (OpenRouter's free generation lookup). The API key
is removed from every string and byte of the result before it leaves the adapter.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx

from assay.core.records import Usage
from assay.providers.base import (
    NANO,
    ModelProfile,
    ProviderRequest,
    ProviderResult,
    Reply,
    nano_up,
)
from assay.providers.http import Received, TransportFailure, exchange, make_client
from assay.providers.outcomes import RULES, FailureKind, decide
from assay.providers.secrets import redact_bytes, redact_text

DETAIL_CHARS = 300


def encode_body(body: dict[str, Any]) -> bytes:
    """The exact bytes sent: compact JSON, UTF-8, keys in the order the adapter built them."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def user_messages(prompt: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}]


class Finding(Reply):
    """What the adapter read from one exchange, before any decision."""

    kind: FailureKind | None = None
    """``None``: a usable completion."""
    reason: str | None = None


class ChatCompletionsAdapter:
    """One provider call per ``complete``; subclasses say where and how to send it."""

    reports_cost = False
    """True when every completed response must carry a cost (OpenRouter)."""

    def __init__(self, profile: ModelProfile, *, api_key: str | None) -> None:
        self.profile = profile
        self._api_key = api_key

    # hooks ---------------------------------------------------------------------------------
    def url(self) -> str:
        raise NotImplementedError

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        raise NotImplementedError

    def filter_error(self, data: dict[str, Any]) -> str | None:
        """A content-filter failure hidden in a 200 body (Azure), described; else ``None``."""
        return None

    def cost(self, usage: dict[str, Any]) -> float | None:
        return 0.0 if self.profile.is_free else None

    def choice_text(self, choice: dict[str, Any]) -> Any:
        """The completion's text as found in its choice (checked to be text afterwards)."""
        message = choice.get("message")
        return message.get("content") if isinstance(message, dict) else None

    def identity_fields(self, data: dict[str, Any], header_id: str | None) -> dict[str, Any]:
        """Who served the answer, as the body says: generation id, model, provider."""
        return _identity_fields(data, header_id)

    def read_timeout(self) -> bool:
        """Whether the profile's ``timeout_seconds`` limits the wait for a response."""
        return True

    def prove_no_charge(self, client: httpx.Client, generation_id: str) -> str | None:
        """Evidence that this generation cost nothing, from a free call; else ``None``."""
        return None

    # the call ------------------------------------------------------------------------------
    def complete(self, request: ProviderRequest) -> ProviderResult:
        payload = encode_body(self.body(request))
        cap = self.profile.request_bytes_cap
        if cap is not None and len(payload) > cap:
            return decide("request-too-large", detail=f"{len(payload)} bytes, cap {cap}")
        headers = {**self.auth_headers(), "Content-Type": "application/json"}
        with make_client(self.profile, read_timeout=self.read_timeout()) as client:
            got = exchange(
                client,
                "POST",
                self.url(),
                headers=headers,
                content=payload,
                body_cap=self.profile.max_response_bytes,
            )
            finding = self.read(got)
            proof = None
            if (
                finding.kind is not None
                and RULES[finding.kind].provable
                and finding.generation_id is not None
            ):
                proof = self.prove_no_charge(client, finding.generation_id)
        return self.redact(self.result(finding, proof))

    def result(self, finding: Finding, proof: str | None) -> ProviderResult:
        fields = finding.model_dump(exclude={"kind"})
        if finding.kind is None:
            return ProviderResult(status="completed", **fields)
        return decide(finding.kind, proof=proof, **fields)

    def read(self, got: Received | TransportFailure) -> Finding:
        if isinstance(got, TransportFailure):
            return Finding(
                kind=got.kind,
                detail=got.detail,
                raw=got.partial_body,
                generation_id=got.headers.get("x-generation-id"),
                latency_seconds=got.latency_seconds,
            )
        base = Finding(
            raw=got.body,
            generation_id=got.headers.get("x-generation-id"),
            latency_seconds=got.latency_seconds,
        )
        data, problem = parse_json(got.body)
        if isinstance(data, dict):
            base = base.model_copy(update=self.identity_fields(data, base.generation_id))
        if got.status_code != 200:
            return base.model_copy(
                update={
                    "kind": "http-error",
                    "reason": f"http-{got.status_code}",
                    "detail": error_detail(data.get("error")) if isinstance(data, dict) else None,
                }
            )
        if problem is not None:
            return base.model_copy(update={"kind": problem[0], "detail": problem[1]})
        if not isinstance(data, dict):
            return base.model_copy(update={"kind": "malformed-response", "detail": "not an object"})
        return self.read_completion(data, base)

    def read_completion(self, data: dict[str, Any], base: Finding) -> Finding:
        if data.get("error") is not None:
            return base.model_copy(
                update={"kind": "error-body", "detail": error_detail(data["error"])}
            )
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return base.model_copy(update={"kind": "malformed-response", "detail": "no choices"})
        choice: dict[str, Any] = choices[0]
        finish = choice.get("finish_reason")
        usage_value = data.get("usage")
        usage_data: dict[str, Any] = usage_value if isinstance(usage_value, dict) else {}
        content = self.choice_text(choice)
        seen = base.model_copy(
            update={
                "finish_reason": finish if isinstance(finish, str) else None,
                "usage": read_usage(usage_data),
                "cost_usd": self.cost(usage_data),
                "text": content if isinstance(content, str) else None,
            }
        )
        if finish == "error" or choice.get("error") is not None:
            return seen.model_copy(
                update={"kind": "choice-error", "detail": error_detail(choice.get("error"))}
            )
        mismatch = self.identity_mismatch(seen)
        if mismatch is not None:
            return seen.model_copy(update={"kind": "identity-mismatch", "detail": mismatch})
        filter_problem = self.filter_error(data)
        if filter_problem is not None:
            return seen.model_copy(
                update={"kind": "content-filter-error", "detail": filter_problem}
            )
        if finish == "content_filter":
            return seen.model_copy(update={"kind": "content-filtered"})
        if content is not None and not isinstance(content, str):
            return seen.model_copy(
                update={"kind": "malformed-response", "detail": "message content is not text"}
            )
        if not (seen.text or "").strip():
            return seen.model_copy(update={"kind": "empty-completion"})
        if self.reports_cost and seen.cost_usd is None:
            return seen.model_copy(update={"kind": "cost-unreported"})
        anomaly = billing_anomaly(self.profile, seen)
        if anomaly is not None:
            return seen.model_copy(update={"kind": anomaly[0], "detail": anomaly[1]})
        return seen

    def identity_mismatch(self, seen: Finding) -> str | None:
        profile = self.profile
        if seen.served_model not in (profile.model, *profile.aliases):
            return (
                f"served model {seen.served_model!r} is neither {profile.model!r} "
                "nor a declared alias"
            )
        pin = profile.provider_pin
        if pin is not None and seen.served_provider not in (pin, *profile.provider_aliases):
            return (
                f"served provider {seen.served_provider!r} is neither the pin {pin!r} "
                "nor a declared provider alias"
            )
        return None

    def redact(self, result: ProviderResult) -> ProviderResult:
        """The result with the API key (raw, escaped, URL-encoded or base64) replaced wherever
        a server echoed it."""
        key = self._api_key
        if not key:
            return result
        update: dict[str, Any] = {
            name: redact_text(value, key)
            for name, value in result
            if isinstance(value, str) and redact_text(value, key) != value
        }
        raw = redact_bytes(result.raw, key)
        if raw != result.raw:
            update["raw"] = raw
        return result.model_copy(update=update) if update else result


def billing_anomaly(profile: ModelProfile, seen: Finding) -> tuple[FailureKind, str] | None:
    """The first way the reported usage breaks the bounds the plan was priced with, in words."""
    usage = seen.usage
    completion, prompt = usage.completion_tokens, usage.prompt_tokens
    if completion is not None and completion > profile.max_output_tokens:
        return "completion-over-max", (
            f"{completion:,} completion tokens against max_tokens {profile.max_output_tokens:,}"
        )
    if prompt is not None and prompt > profile.context_tokens:
        return "prompt-over-context", (
            f"{prompt:,} prompt tokens against context_tokens {profile.context_tokens:,}"
        )
    cost = seen.cost_usd
    if cost is None or profile.is_free:
        return None
    cost_nano = nano_up(cost)
    if cost_nano > nano_up(profile.reservation):
        return "cost-above-reservation", (
            f"reported ${cost:.6f} for one call, above its ${profile.reservation:.6f} reservation"
        )
    if prompt is not None and completion is not None:
        caps = profile.price_caps
        allowed = (
            prompt * Decimal(str(caps.prompt)) + completion * Decimal(str(caps.completion))
        ) * 1000  # USD per million tokens -> nano-USD
        if cost_nano > allowed:
            return "price-above-caps", (
                f"reported ${cost:.6f} for {prompt:,} prompt + {completion:,} completion tokens; "
                f"the caps (${caps.prompt}/M, ${caps.completion}/M) allow ${float(allowed) / NANO:.6f}"
            )
    return None


def parse_json(body: bytes) -> tuple[Any, tuple[FailureKind, str] | None]:
    """The decoded body, or why it could not be decoded (``truncated-json`` when it ends early)."""
    try:
        document = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, ("malformed-json", f"not UTF-8 at byte {exc.start}")
    if not document.strip():
        return None, ("malformed-json", "empty body")
    try:
        return json.loads(document), None
    except json.JSONDecodeError as exc:
        ends_early = exc.pos >= len(document.rstrip()) or exc.msg.startswith("Unterminated")
        kind: FailureKind = "truncated-json" if ends_early else "malformed-json"
        return None, (kind, f"{exc.msg} (character {exc.pos} of {len(document)})")


def error_detail(error: Any) -> str | None:
    """``code …: message`` from an error object, shortened; never the upstream raw body."""
    if isinstance(error, dict):
        parts = []
        if error.get("code") is not None:
            parts.append(f"code {error['code']}")
        if isinstance(error.get("message"), str):
            parts.append(error["message"])
        text = ": ".join(parts) or "error object without code or message"
    elif isinstance(error, str):
        text = error
    else:
        return None
    return text[:DETAIL_CHARS]


def read_usage(usage: dict[str, Any]) -> Usage:
    def count(name: str) -> int | None:
        value = usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return Usage(prompt_tokens=count("prompt_tokens"), completion_tokens=count("completion_tokens"))


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _identity_fields(data: dict[str, Any], header_id: str | None) -> dict[str, Any]:
    body_id = data.get("id")
    model = data.get("model")
    provider = data.get("provider")
    return {
        "generation_id": body_id if isinstance(body_id, str) else header_id,
        "served_model": model if isinstance(model, str) else None,
        "served_provider": provider if isinstance(provider, str) else None,
    }

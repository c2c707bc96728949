"""OpenRouter: chat completions routed to exactly one pinned upstream provider.

The request pins routing as the profile says (``provider.order`` and ``provider.only`` = the
pin, no fallbacks, every parameter required, no data collection, zero data retention, and the
price caps as ``max_price`` in USD per million tokens). OpenRouter always returns ``usage.cost``
(its ``usage: {include: true}`` switch is deprecated and has no effect, so it is not sent); a
completion without a cost halts. A failure whose response arrived complete may be proven free
by ``GET /generation?id=`` reporting a total cost of exactly zero.
"""

from __future__ import annotations

from typing import Any

import httpx

from assay.providers import openai_compatible
from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.chat import ChatCompletionsAdapter, number, parse_json
from assay.providers.http import Received, exchange

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"


def base_url(profile: ModelProfile) -> str:
    return (profile.base_url or DEFAULT_BASE_URL).rstrip("/")


def routing(profile: ModelProfile) -> dict[str, Any]:
    """The ``provider`` object: one provider, no fallback, caps as ``max_price``."""
    if profile.provider_pin is None:
        raise ValueError("an openrouter profile needs provider_pin")
    return {
        "order": [profile.provider_pin],
        "only": [profile.provider_pin],
        "allow_fallbacks": False,
        "require_parameters": True,
        "data_collection": "deny",
        "zdr": True,
        "max_price": {
            "prompt": profile.price_caps.prompt,
            "completion": profile.price_caps.completion,
        },
    }


def request_body(profile: ModelProfile, prompt: str) -> dict[str, Any]:
    """The chat-completions body every compatible endpoint takes, with OpenRouter's routing."""
    return {**openai_compatible.request_body(profile, prompt), "provider": routing(profile)}


class OpenRouterProvider(ChatCompletionsAdapter):
    reports_cost = True

    def url(self) -> str:
        return f"{base_url(self.profile)}/chat/completions"

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        return request_body(self.profile, request.prompt)

    def cost(self, usage: dict[str, Any]) -> float | None:
        return number(usage.get("cost"))

    def prove_no_charge(self, client: httpx.Client, generation_id: str) -> str | None:
        got = exchange(
            client,
            "GET",
            str(httpx.URL(f"{base_url(self.profile)}/generation", params={"id": generation_id})),
            headers=self.auth_headers(),
            body_cap=self.profile.max_response_bytes,
        )
        if not isinstance(got, Received) or got.status_code != 200:
            return None
        return zero_cost_evidence(got.body, generation_id)


def zero_cost_evidence(body: bytes, generation_id: str) -> str | None:
    """Evidence when the generation record is this id, not BYOK, and costs exactly zero."""
    data, problem = parse_json(body)
    record = data.get("data") if isinstance(data, dict) and problem is None else None
    if not isinstance(record, dict) or record.get("id") != generation_id:
        return None
    if record.get("is_byok") is not False or number(record.get("total_cost")) != 0.0:
        return None
    return f"GET /generation reports total_cost 0 for {generation_id}"

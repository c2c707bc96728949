"""Azure OpenAI: a deployment at ``{base_url}/openai/deployments/{deployment}``.

The key goes in the ``api-key`` header; ``api-version`` is a query parameter from the profile.
Azure reports tokens but no cost. Its content filter has two 200-shaped failures: a filtered
completion (``finish_reason: "content_filter"``) and an unavailable filter (the request
completes unfiltered and ``content_filter_result(s)`` carries an ``error``), at the choice or
in ``prompt_filter_results``. Both are failures here; a filtered prompt arrives as HTTP 400.
"""

from __future__ import annotations

from typing import Any

import httpx

from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.chat import ChatCompletionsAdapter, error_detail, user_messages

FILTER_KEYS = ("content_filter_results", "content_filter_result")


def chat_url(profile: ModelProfile) -> str:
    if not (profile.base_url and profile.deployment and profile.api_version):
        raise ValueError("an azure-openai profile needs base_url, deployment and api_version")
    base = profile.base_url.rstrip("/")
    url = httpx.URL(
        f"{base}/openai/deployments/{profile.deployment}/chat/completions",
        params={"api-version": profile.api_version},
    )
    return str(url)


def request_body(profile: ModelProfile, prompt: str) -> dict[str, Any]:
    return {
        "messages": user_messages(prompt),
        "max_tokens": profile.max_output_tokens,
        "temperature": profile.temperature,
        "stream": False,
    }


def filter_error(data: dict[str, Any]) -> str | None:
    """The first content-filter ``error`` in the choices or the prompt filter results."""
    holders: list[Any] = []
    for field in ("choices", "prompt_filter_results"):
        entries = data.get(field)
        if isinstance(entries, list):
            holders.extend(entry for entry in entries if isinstance(entry, dict))
    for holder in holders:
        for key in FILTER_KEYS:
            results = holder.get(key)
            if isinstance(results, dict) and results.get("error") is not None:
                return f"{key}: {error_detail(results['error'])}"
    return None


class AzureOpenAIProvider(ChatCompletionsAdapter):
    def url(self) -> str:
        return chat_url(self.profile)

    def auth_headers(self) -> dict[str, str]:
        return {"api-key": self._api_key} if self._api_key else {}

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        return request_body(self.profile, request.prompt)

    def filter_error(self, data: dict[str, Any]) -> str | None:
        return filter_error(data)

"""Any server speaking OpenAI chat completions at a base URL (vLLM, llama.cpp server, Ollama).

The key, when the profile names one, is sent as a bearer token. Such servers report no cost:
a profile priced at zero records a cost of 0, any other records none. No provider is pinned
unless the profile says so, in which case the response's ``provider`` field must match it.
"""

from __future__ import annotations

from typing import Any

from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.chat import ChatCompletionsAdapter, user_messages


def base_url(profile: ModelProfile) -> str:
    if not profile.base_url:
        raise ValueError("an openai-compatible profile needs base_url")
    return profile.base_url.rstrip("/")


def request_body(profile: ModelProfile, prompt: str) -> dict[str, Any]:
    return {
        "model": profile.model,
        "messages": user_messages(prompt),
        "max_tokens": profile.max_output_tokens,
        "temperature": profile.temperature,
        "stream": False,
    }


class OpenAICompatibleProvider(ChatCompletionsAdapter):
    def url(self) -> str:
        return f"{base_url(self.profile)}/chat/completions"

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        return request_body(self.profile, request.prompt)

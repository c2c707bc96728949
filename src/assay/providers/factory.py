"""Provider construction from a profile, and the size of the request a cell would send.

``make_provider`` is the one place a profile becomes a provider. Configuration problems (a
missing pin, base URL or key) raise ``ProviderConfigError`` here, before anything is sent; the
message names the environment variable, never its value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assay.errors import InputError
from assay.providers import azure_openai, local, openai_compatible, openrouter
from assay.providers.base import ModelProfile, Provider, ProviderKind
from assay.providers.chat import ChatCompletionsAdapter, encode_body
from assay.providers.secrets import read_key

REAL_ADAPTERS: dict[ProviderKind, type[ChatCompletionsAdapter]] = {
    "openrouter": openrouter.OpenRouterProvider,
    "openai-compatible": openai_compatible.OpenAICompatibleProvider,
    "azure-openai": azure_openai.AzureOpenAIProvider,
}

REQUEST_BODIES: dict[ProviderKind, Callable[[ModelProfile, str], dict[str, Any]]] = {
    "openrouter": openrouter.request_body,
    "openai-compatible": openai_compatible.request_body,
    "azure-openai": azure_openai.request_body,
    "local": local.request_body,
}

LOCAL_FACTORIES: dict[ProviderKind, Callable[[ModelProfile], Provider]] = {}
"""Hook for providers that need no network or key (``simulated``, ``replay``): register a
constructor here, e.g. ``LOCAL_FACTORIES["simulated"] = SimulatedProvider``."""


class ProviderConfigError(InputError):
    """The profile or environment cannot make a working provider; nothing was sent."""


def make_provider(profile: ModelProfile, *, env: Mapping[str, str]) -> Provider:
    local = LOCAL_FACTORIES.get(profile.provider)
    if local is not None:
        return local(profile)
    adapter = REAL_ADAPTERS.get(profile.provider)
    if adapter is None:
        raise ProviderConfigError(f"no provider is registered for kind {profile.provider!r}")
    problem = profile_problem(profile)
    if problem is not None:
        raise ProviderConfigError(problem)
    return adapter(profile, api_key=api_key(profile, env))


def profile_problem(profile: ModelProfile) -> str | None:
    """What a real profile lacks, if anything."""
    if profile.provider == "openrouter":
        if not profile.provider_pin:
            return "an openrouter profile needs provider_pin (the one upstream provider slug)"
        if not profile.api_key_env:
            return "an openrouter profile needs api_key_env"
    if profile.provider == "openai-compatible" and not profile.base_url:
        return "an openai-compatible profile needs base_url"
    if profile.provider == "azure-openai":
        missing = [
            name
            for name in ("base_url", "deployment", "api_version", "api_key_env")
            if not getattr(profile, name)
        ]
        if missing:
            return f"an azure-openai profile needs {', '.join(missing)}"
    return None


def api_key(profile: ModelProfile, env: Mapping[str, str]) -> str | None:
    """The profile's key, or ``ProviderConfigError`` when it is unset or malformed (the message
    names the variable, never the value)."""
    if profile.api_key_env is None:
        return None
    key, problem = read_key(profile.api_key_env, env)
    if problem is not None:
        raise ProviderConfigError(problem)
    return key


def request_bytes(profile: ModelProfile, prompt: str) -> int:
    """Size of the JSON body a real provider would send for this prompt; the plan compares it
    with ``profile.request_bytes_cap``. Kinds without a wire format count the prompt's bytes."""
    build = REQUEST_BODIES.get(profile.provider)
    if build is None:
        return len(prompt.encode())
    return len(encode_body(build(profile, prompt)))

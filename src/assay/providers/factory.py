"""Provider construction from a profile, and the size of the request a cell would send.

``make_provider`` is the one place a profile becomes a provider: a real adapter
(:data:`REAL_ADAPTERS`), a stand-in (:data:`STAND_INS`: the simulated model, a replayed run)
or a local model (:data:`KEYLESS_FACTORIES` holds both kinds that need no key). A provider that
serves a run gets its :class:`ProviderSite`: only the simulated stand-in reads the scenario (its
answer book), an Inspect log's the run's plan (the log it binds and the cells to match), and
only a local model the runtime and the run's ledger folder (its server log);
real providers receive the prompt and nothing else. Configuration problems (a missing pin, base
URL or key) raise ``ProviderConfigError`` here, before anything is sent; the message names the
environment variable, never its value.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from assay import evidence
from assay.core.errors import InputError
from assay.core.records import Frozen
from assay.evidence.plan import Plan
from assay.providers import azure_openai, local, openai_compatible, openrouter
from assay.providers.base import ModelProfile, Provider, ProviderKind
from assay.providers.chat import ChatCompletionsAdapter, encode_body, user_messages
from assay.providers.replay import ReplayProvider
from assay.providers.secrets import read_key
from assay.providers.simulated import SimulatedProvider, answer_book

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

SERVER_LOG = "server.log"
"""A local model's server output, in the run's ledger folder (beside the attempts it served,
outside DVC's outputs: its timestamps would make the send stage's outputs differ from one fresh
run to the next)."""


class ProviderConfigError(InputError):
    """The profile or environment cannot make a working provider; nothing was sent."""


class ProviderSite(Frozen):
    """The run a provider serves: its scenario (the simulated stand-in's answer book), the
    runtime its plan pins and its ledger folder (a local model's runtime and server log)."""

    run: str
    scenario: str
    runtime: dict[str, Any]
    ledger_dir: str

    @classmethod
    def of(cls, plan: Plan, ledger_dir: Path) -> ProviderSite:
        return cls(
            run=plan.run, scenario=plan.scenario, runtime=plan.runtime, ledger_dir=str(ledger_dir)
        )


def _simulated(profile: ModelProfile, site: ProviderSite) -> Provider:
    scenario = evidence.read_run_scenario(site.run, site.scenario)
    return SimulatedProvider(profile, answer_book(scenario.subjects))


def _replay(profile: ModelProfile, _: ProviderSite) -> Provider:
    if not profile.replay_ledger:
        raise ProviderConfigError(
            "a replay profile needs replay_ledger (the earlier run's ledger folder)"
        )
    return ReplayProvider(Path(profile.replay_ledger))


def _inspect_log(_: ModelProfile, site: ProviderSite) -> Provider:
    from assay.providers.inspect_log import provider_for  # reads the log with inspect_ai

    return provider_for(evidence.read_plan(site.run))


def _local(profile: ModelProfile, site: ProviderSite) -> Provider:
    return local.LocalProvider(
        profile, runtime=site.runtime, log=Path(site.ledger_dir) / SERVER_LOG
    )


STAND_INS: dict[ProviderKind, Callable[[ModelProfile, ProviderSite], Provider]] = {
    "simulated": _simulated,
    "replay": _replay,
    "inspect-log": _inspect_log,
}
"""The stand-ins: providers that answer without calling a model (the simulated one from its
answer book, a replayed run from its ledger, an Inspect log's answers made outside assay). They
are free, and their results are labelled."""

KEYLESS_FACTORIES: dict[ProviderKind, Callable[[ModelProfile, ProviderSite], Provider]] = {
    **STAND_INS,
    "local": _local,
}
"""Providers that need no key: the stand-ins and a local model (its server runs here)."""


def make_provider(
    profile: ModelProfile, *, env: Mapping[str, str], site: ProviderSite | None = None
) -> Provider:
    """The provider of ``profile``; a stand-in or a local model needs the ``site`` it serves."""
    keyless = KEYLESS_FACTORIES.get(profile.provider)
    if keyless is not None:
        if site is None:
            raise ProviderConfigError(
                f"no provider is registered for kind {profile.provider!r} outside a run: it "
                "needs the run it serves (its site)"
            )
        return keyless(profile, site)
    adapter = REAL_ADAPTERS.get(profile.provider)
    if adapter is None:
        raise ProviderConfigError(f"no provider is registered for kind {profile.provider!r}")
    problem = profile_problem(profile)
    if problem is not None:
        raise ProviderConfigError(problem)
    return adapter(profile, api_key=api_key(profile, env))


def for_run(plan: Plan, ledger_dir: Path) -> Callable[[], Provider]:
    """How the execute loop makes the run's provider (when its first call is due); ``ledger_dir``
    is the run's ledger folder."""
    return partial(
        make_provider, plan.model, env=os.environ, site=ProviderSite.of(plan, ledger_dir)
    )


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


def request_messages(profile: ModelProfile, prompt: str) -> list[dict[str, str]]:
    """The messages the provider of ``profile`` receives for ``prompt``, as its adapter builds
    the request (:data:`REQUEST_BODIES`): a chat model's ``messages`` (the user message, then a
    local model's prefilled assistant turn when it has an ``answer_prefix``); a local model in
    ``completion`` mode receives one text, ``prompt + prompt_suffix + answer_prefix``, shown as
    one user message. The stand-ins (simulated, replay) have no wire format: the prompt is their
    user message."""
    build = REQUEST_BODIES.get(profile.provider)
    if build is None:
        return user_messages(prompt)
    body = build(profile, prompt)
    if "messages" in body:
        return [dict(message) for message in body["messages"]]
    return user_messages(body["prompt"])

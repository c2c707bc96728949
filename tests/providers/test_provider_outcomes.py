"""Every failure kind in cases/failures.yaml against a real server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import pytest
import yaml
from provider_server import PLANTED_KEY, LocalServer, Reply

from assay.providers.base import ModelProfile, ProviderRequest, ProviderResult
from assay.providers.factory import make_provider
from assay.providers.outcomes import RULES, FailureKind

TABLE = yaml.safe_load((Path(__file__).parent / "cases" / "failures.yaml").read_text())
CASES = TABLE["cases"]
ENV = {"OPENROUTER_API_KEY": PLANTED_KEY, "AZURE_OPENAI_API_KEY": PLANTED_KEY}


def profile_for(adapter: str, base: str, overrides: dict[str, Any]) -> ModelProfile:
    fields = {**TABLE["profiles"][adapter], **overrides}
    fields["base_url"] = base + fields.pop("base_path")
    return ModelProfile.model_validate(fields)


def call(case: dict[str, Any], server: LocalServer, base: str) -> ProviderResult:
    adapter = case["adapter"]
    if "reply" in case:
        server.routes[TABLE["chat_paths"][adapter]] = Reply.of(case["reply"])
    if "generation" in case:
        server.routes[TABLE["generation_path"]] = Reply.of(case["generation"])
    provider = make_provider(profile_for(adapter, base, case.get("profile", {})), env=ENV)
    return provider.complete(ProviderRequest(key="cell-1#1", prompt="Add a function."))


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_outcome(
    case: dict[str, Any], server: LocalServer, refused_url: str, unanswered_url: str
) -> None:
    base = {"refused": refused_url, "unanswered": unanswered_url}.get(
        case.get("connect", ""), server.url
    )
    result = call(case, server, base)
    expect = dict(case["expect"])

    assert result.status == expect.pop("status")
    assert result.reason == expect.pop("reason")
    assert result.halt is expect.pop("halt")
    assert result.no_charge_proven is expect.pop("proven")
    chat_path = TABLE["chat_paths"][case["adapter"]]
    assert server.count(chat_path) == expect.pop("requests", 1)
    assert server.count(chat_path, "POST") == server.count(chat_path)
    if "generations" in expect:
        assert server.count(TABLE["generation_path"]) == expect.pop("generations")
    assert server.count(TABLE["generation_path"]) <= 1
    if "prompt_tokens" in expect:
        assert result.usage.prompt_tokens == expect.pop("prompt_tokens")
    if "completion_tokens" in expect:
        assert result.usage.completion_tokens == expect.pop("completion_tokens")
    for name, value in expect.items():
        assert getattr(result, name) == value, name
    if result.status != "completed":
        assert result.detail, "a failure explains itself"
    assert PLANTED_KEY not in result.model_dump_json()
    assert PLANTED_KEY.encode() not in result.raw


def test_every_failure_kind_has_one_rule() -> None:
    assert set(RULES) == set(get_args(FailureKind))


def test_only_unsent_requests_continue_without_a_proof() -> None:
    free = {kind for kind, rule in RULES.items() if not rule.halts}
    assert free == {"request-too-large", "connect-refused", "connect-error", "connect-timeout"}
    assert all(rule.free for kind, rule in RULES.items() if kind in free)


def test_table_reaches_every_reachable_kind() -> None:
    reasons = [case["expect"]["reason"] or "" for case in CASES]
    reached = {reason.split(";")[0] for reason in reasons}
    reached = {"http-error" if reason.startswith("http-") else reason for reason in reached}
    unreachable_on_loopback = {"connect-error", "write-error", "write-timeout", "transport-error"}
    assert set(RULES) - unreachable_on_loopback <= reached

"""What goes on the wire: routing byte for byte, auth headers, the request size helper, and
that a planted key never appears in anything the providers produce."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from provider_server import PLANTED_KEY, LocalServer, Reply

from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.factory import ProviderConfigError, make_provider, request_bytes

TABLE = yaml.safe_load((Path(__file__).parent / "cases" / "requests.yaml").read_text())
ENV = {"OPENROUTER_API_KEY": PLANTED_KEY, "AZURE_OPENAI_API_KEY": PLANTED_KEY}


def profile_for(fields: dict[str, Any], base: str) -> ModelProfile:
    fields = dict(fields)
    fields["base_url"] = base + fields.pop("base_path")
    return ModelProfile.model_validate(fields)


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["name"] for c in TABLE["cases"]])
def test_request_on_the_wire(case: dict[str, Any], server: LocalServer) -> None:
    server.routes[case["path"]] = Reply(status=500)
    profile = profile_for(case["profile"], server.url)
    make_provider(profile, env=ENV).complete(ProviderRequest(key="c#1", prompt=TABLE["prompt"]))

    (seen,) = server.requests
    assert (seen.method, seen.path, seen.query) == ("POST", case["path"], case["query"])
    assert json.loads(seen.body) == case["body"]
    expected_bytes = json.dumps(case["body"], ensure_ascii=False, separators=(",", ":")).encode()
    assert seen.body == expected_bytes
    assert request_bytes(profile, TABLE["prompt"]) == len(seen.body)
    for name, value in case["headers"].items():
        assert seen.headers[name] == value.replace("KEY", PLANTED_KEY)
    for name in case["absent_headers"]:
        assert name not in seen.headers


def test_request_bytes_grows_with_the_prompt_and_counts_utf8() -> None:
    profile = profile_for(TABLE["cases"][0]["profile"], "http://127.0.0.1:1")
    small = request_bytes(profile, "a")
    assert request_bytes(profile, "a" * 1001) == small + 1000
    assert request_bytes(profile, "é") == small + 1


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"provider": "openrouter", "model": "m", "api_key_env": "K"}, "provider_pin"),
        ({"provider": "openrouter", "model": "m", "provider_pin": "p"}, "api_key_env"),
        ({"provider": "openai-compatible", "model": "m"}, "base_url"),
        ({"provider": "azure-openai", "model": "m", "base_url": "http://x"}, "deployment"),
        (
            {"provider": "openrouter", "model": "m", "provider_pin": "p", "api_key_env": "UNSET"},
            "UNSET is not set",
        ),
        ({"provider": "simulated", "model": "m"}, "no provider is registered"),
    ],
)
def test_unusable_profiles_fail_before_sending(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ProviderConfigError, match=message):
        make_provider(ModelProfile.model_validate(fields), env=ENV)


def test_planted_key_never_leaves_in_results(server: LocalServer) -> None:
    """The server echoes the key in an error message and a body; the results carry neither."""
    chat = "/api/v1/chat/completions"
    profile = profile_for(TABLE["cases"][0]["profile"], server.url)
    provider = make_provider(profile, env=ENV)
    echoes = [
        Reply(
            status=401, body=json.dumps({"error": {"code": 401, "message": PLANTED_KEY}}).encode()
        ),
        Reply(body=json.dumps({"error": {"message": f"bad key {PLANTED_KEY}"}}).encode()),
        Reply(body=f'{{"id": "{PLANTED_KEY}", "choi'.encode()),
        Reply(
            body=json.dumps(
                {
                    "id": PLANTED_KEY,
                    "provider": PLANTED_KEY,
                    "model": PLANTED_KEY,
                    "choices": [{"finish_reason": PLANTED_KEY, "message": {"content": "x"}}],
                }
            ).encode()
        ),
        Reply(
            body=json.dumps(
                {
                    "id": "gen-k",
                    "provider": "Amazon Bedrock",
                    "model": "anthropic/claude-3-haiku",
                    "choices": [{"finish_reason": "stop", "message": {"content": PLANTED_KEY}}],
                    "usage": {"cost": 0.0001},
                }
            ).encode()
        ),
    ]
    produced: list[str | bytes] = []
    for reply in echoes:
        server.routes[chat] = reply
        result = provider.complete(ProviderRequest(key="c#1", prompt="p"))
        produced += [result.model_dump_json(), result.raw, repr(result), str(result.detail)]
    assert all(seen.headers["authorization"] == f"Bearer {PLANTED_KEY}" for seen in server.requests)
    assert len(server.requests) == len(echoes)
    for output in produced:
        needle: str | bytes = PLANTED_KEY.encode() if isinstance(output, bytes) else PLANTED_KEY
        assert needle not in output

"""Any body a server might send is read into a value, never an exception, and only a body that
passes every check completes without a halt."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.providers.base import ModelProfile, PriceCaps
from assay.providers.factory import REAL_ADAPTERS
from assay.providers.http import Received

PROFILES = {
    "openrouter": ModelProfile(
        provider="openrouter",
        model="anthropic/claude-3-haiku",
        provider_pin="amazon-bedrock",
        provider_aliases=("Amazon Bedrock",),
        price_caps=PriceCaps(prompt=0.25, completion=1.25),
        ceiling_usd=2.88,
        api_key_env="K",
    ),
    "azure-openai": ModelProfile(
        provider="azure-openai",
        model="gpt-4o",
        base_url="http://127.0.0.1:9",
        deployment="d",
        api_version="v",
        api_key_env="K",
    ),
}
KEYS = [
    "id",
    "model",
    "provider",
    "choices",
    "usage",
    "error",
    "message",
    "content",
    "finish_reason",
    "cost",
    "prompt_tokens",
    "completion_tokens",
    "content_filter_results",
    "prompt_filter_results",
]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False)
    | st.sampled_from(
        [
            "",
            " ",
            "x = 1",
            "stop",
            "error",
            "content_filter",
            "length",
            "gen-1",
            "anthropic/claude-3-haiku",
            "Amazon Bedrock",
            "gpt-4o",
        ]
    )
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(sorted(PROFILES)),
    status=st.sampled_from([200, 200, 200, 429, 500]),
    document=JSON,
    cut=st.integers(0, 40),
)
def test_every_body_becomes_a_value(kind: str, status: int, document: Any, cut: int) -> None:
    provider = REAL_ADAPTERS[kind](PROFILES[kind], api_key="secret")
    body = json.dumps(document).encode()
    for raw in (body, body[: len(body) - cut]):
        got = Received(status_code=status, headers={}, body=raw, latency_seconds=0.0)
        result = provider.result(provider.read(got), proof=None)
        if result.status == "completed" and not result.halt:
            assert status == 200
            assert result.text and result.text.strip()
            profile = PROFILES[kind]
            assert result.served_model in (profile.model, *profile.aliases)
            if kind == "openrouter":
                assert result.served_provider in ("amazon-bedrock", "Amazon Bedrock")
                assert result.cost_usd is not None
        else:
            assert result.halt or result.no_charge_proven


VALID = {
    "openrouter": {
        "id": "gen-1",
        "provider": "Amazon Bedrock",
        "model": "anthropic/claude-3-haiku",
        "choices": [{"finish_reason": "stop", "message": {"content": "x = 1"}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "cost": 0.000003},  # within the caps
    },
    "azure-openai": {
        "id": "c-1",
        "model": "gpt-4o",
        "choices": [
            {"finish_reason": "stop", "message": {"content": "x = 1"}, "content_filter_results": {}}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    },
}
PATHS = [
    ("id",),
    ("provider",),
    ("model",),
    ("choices",),
    ("usage",),
    ("error",),
    ("choices", 0),
    ("choices", 0, "finish_reason"),
    ("choices", 0, "message"),
    ("choices", 0, "message", "content"),
    ("choices", 0, "error"),
    ("choices", 0, "content_filter_results"),
    ("usage", "cost"),
]


def replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(document))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(sorted(PROFILES)), path=st.sampled_from(PATHS), value=JSON)
def test_one_wrong_field_never_completes_silently(
    kind: str, path: tuple[Any, ...], value: Any
) -> None:
    document = replaced(VALID[kind], path, value)
    provider = REAL_ADAPTERS[kind](PROFILES[kind], api_key="secret")
    got = Received(
        status_code=200, headers={}, body=json.dumps(document).encode(), latency_seconds=0.0
    )
    result = provider.result(provider.read(got), proof=None)
    if result.status == "completed" and not result.halt:
        choice = document["choices"][0]
        assert (
            isinstance(choice["message"]["content"], str) and choice["message"]["content"].strip()
        )
        assert choice.get("error") is None and choice.get("finish_reason") not in (
            "error",
            "content_filter",
        )
        assert document.get("error") is None
    else:
        assert result.halt


def test_the_valid_bodies_complete() -> None:
    for kind, document in VALID.items():
        provider = REAL_ADAPTERS[kind](PROFILES[kind], api_key="secret")
        got = Received(
            status_code=200, headers={}, body=json.dumps(document).encode(), latency_seconds=0.0
        )
        result = provider.result(provider.read(got), proof=None)
        assert (result.status, result.halt, result.text) == ("completed", False, "x = 1")

"""The messages each kind of provider receives for a prompt (cases/messages.yaml), built by the
adapter's own request builder, and the same messages its request body carries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.providers.base import ModelProfile
from assay.providers.factory import REQUEST_BODIES, request_messages

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "messages.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_messages_a_provider_receives(case: dict[str, Any]) -> None:
    profile = ModelProfile.model_validate(case["profile"])
    assert request_messages(profile, "PROMPT") == case["messages"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_chat_body_carries_exactly_those_messages(case: dict[str, Any]) -> None:
    profile = ModelProfile.model_validate(case["profile"])
    build = REQUEST_BODIES.get(profile.provider)
    body = build(profile, "PROMPT") if build else {}
    if "messages" in body:
        assert body["messages"] == request_messages(profile, "PROMPT")
    elif "prompt" in body:
        assert [{"role": "user", "content": body["prompt"]}] == request_messages(profile, "PROMPT")
    else:
        assert build is None and profile.provider in ("simulated", "replay")

"""The local profile: what a request carries (a case table), and what the profile refuses
(the params cases in tests/cases/params_malformed.yaml run the refusals through `assay check`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.local.settings import LocalModel
from assay.providers.base import ModelProfile
from assay.providers.factory import request_bytes
from assay.providers.local import request_body

TABLE = yaml.safe_load((Path(__file__).parent / "cases" / "request_bodies.yaml").read_text())
SHA = TABLE["base"]["local"]["weights_sha256"]


def profile_of(case: dict) -> ModelProfile:
    data = {**TABLE["base"], **{k: v for k, v in case["profile"].items() if k != "local"}}
    data["local"] = {**TABLE["base"]["local"], **case["profile"].get("local", {})}
    return ModelProfile.model_validate(data)


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["id"] for c in TABLE["cases"]])
def test_request_body(case):
    body = request_body(profile_of(case), case["prompt"], case.get("call_key", ""))
    assert body == case["body"]
    assert list(body) == list(case["body"])


def test_the_plan_measures_the_request_the_provider_sends():
    case = TABLE["cases"][0]
    profile = profile_of(case)
    sent = yaml.safe_dump(request_body(profile, case["prompt"]))
    assert request_bytes(profile, case["prompt"]) > len(case["prompt"].encode())
    assert "def implement(" in sent


def test_a_local_profile_is_free():
    profile = profile_of(TABLE["cases"][1])
    assert profile.is_free


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"prompting": "chat", "prompt_suffix": "\n"}, "frames a plain completion"),
        ({"runtime_version": "x"}, "remove runtime_version"),
        ({"server_command": ["vllm", "serve"], "runtime_version": "vllm 0.11"}, "{port}"),
        ({"server_command": ["vllm", "--port", "{port}"]}, "needs runtime_version"),
        ({"threads": 0}, "greater than or equal to 1"),
        ({"weights_sha256": "ABC"}, "String should match pattern"),
    ],
)
def test_inconsistent_settings_are_refused(fields, message):
    with pytest.raises(ValueError, match=message.replace("{", r"\{")):
        LocalModel.model_validate({"weights_sha256": SHA, "prompting": "completion", **fields})

"""A run's prompting mode and kind in words, from its plan, and the mode its profile alone gives
(case table in cases/modes.yaml)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.providers.base import ModelProfile
from assay.report.modes import plan_kind, plan_mode, profile_mode
from tests.report.evidence import _plan

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "modes.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_mode_and_kind_from_the_plan(case: dict[str, Any]) -> None:
    profile = ModelProfile.model_validate(case["model"])
    plan = _plan("r").model_copy(update={"model": profile, "runtime": case.get("runtime", {})})
    assert plan_mode(plan) == case["mode"]
    assert plan_kind(plan, case.get("simulated", False)) == case["kind"]
    assert profile_mode(profile) == case.get("profile_mode", case["mode"])


def test_every_profile_of_the_default_params_has_a_mode() -> None:
    from assay.config.params import load_params
    from tests.conftest import ROOT

    params = load_params(ROOT / "params.yaml")
    modes = {name: profile_mode(p) for name, p in params.models.items()}
    assert modes["qwen-coder-1-5b"] == (
        "chat, answer prefilled with ```python⏎def implement(, sampled at temperature 0.7"
    )
    assert modes["qwen-coder-1-5b-chat"] == "chat, sampled at temperature 0.7"
    assert modes["sim-follower"] == "simulated" and modes["haiku-3-bedrock"] == "chat (API)"

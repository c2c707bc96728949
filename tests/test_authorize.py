from pathlib import Path

import pytest

from assay.authorize import AuthorizationError, decide
from assay.params import RunSpec
from assay.providers.base import ModelProfile

from .test_plan import PAID, plan_for

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def plan():
    return plan_for(ROOT / "fixtures")


def test_free_needs_nothing():
    free = plan_for(ROOT / "fixtures", ModelProfile(provider="simulated", model="s"))
    assert decide(free, RunSpec(model="s", scenario="v1")).state == "free"


def test_paid_without_authorization_awaits(plan):
    decision = decide(plan, RunSpec(model="m", scenario="v1"))
    assert decision.state == "awaiting-authorization"
    assert (decision.plan_hash, decision.cells, decision.worst_case_usd) == (
        plan.hash,
        48,
        pytest.approx(2.88),
    )


def test_matching_hash_twice_and_opt_in_authorizes(plan):
    run = RunSpec(
        model="m", scenario="v1", allow_paid=True, authorization=plan.hash, plan_ref=plan.hash
    )
    assert decide(plan, run).state == "authorized"


def test_matching_hash_without_opt_in_still_awaits(plan):
    run = RunSpec(model="m", scenario="v1", authorization=plan.hash, plan_ref=plan.hash)
    assert decide(plan, run).state == "awaiting-authorization"


@pytest.mark.parametrize(
    "fields",
    [
        {"authorization": "a" * 64, "plan_ref": "a" * 64},
        {"authorization": "HASH"},
        {"plan_ref": "HASH"},
        {"authorization": "HASH", "plan_ref": "b" * 64},
    ],
)
def test_anything_but_the_current_hash_twice_fails_loudly(plan, fields):
    values = {k: (plan.hash if v == "HASH" else v) for k, v in fields.items()}
    expected = "the plan changed since it was approved|is missing from runs.r in params.yaml"
    with pytest.raises(AuthorizationError, match=expected):
        decide(plan, RunSpec(model="m", scenario="v1", allow_paid=True, **values))


def test_paid_profile_is_not_free():
    assert not PAID.is_free

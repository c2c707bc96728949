"""The plan: deterministic, complete, sensitive to every input, and it excludes over-cap cells."""

import shutil
from pathlib import Path

import pytest

from assay.config.params import AnalysisPlan, RunSpec
from assay.core.digest import digest_of
from assay.evidence.plan import load_plan
from assay.fixtures.scenarios import fixture_sources, load_scenario
from assay.paid.plan import build_plan, request_sizes, summary
from assay.providers.base import ModelProfile, PriceCaps
from assay.science.render import render_input

ROOT = Path(__file__).resolve().parents[2]
PAID = ModelProfile(provider="openrouter", model="anthropic/claude-3-haiku", provider_pin="amazon-bedrock",
                    price_caps=PriceCaps(prompt=0.25, completion=1.25), context_tokens=200_000,
                    max_output_tokens=2048, reservation_usd=0.06, ceiling_usd=2.88)  # fmt: skip


def plan_for(fixtures: Path, profile: ModelProfile = PAID, **run):
    scenario = load_scenario("v1", fixtures)
    prompts = {
        (s.id, a.name): render_input(s, a, "v1").text for s in scenario.subjects for a in s.arms
    }
    return build_plan(run_id="r", run=RunSpec(model="m", scenario="v1", **run), profile=profile,
                      scenario=scenario, fixture_sources=digest_of(fixture_sources("v1", fixtures)),
                      prompts=request_sizes(prompts, lambda p: len(p.encode())),
                      analysis=AnalysisPlan(), tools={"python": "3.11"})  # fmt: skip


def test_plan_is_deterministic_and_round_trips():
    first, second = plan_for(ROOT / "fixtures"), plan_for(ROOT / "fixtures")
    assert first.canonical() == second.canonical() and first.hash == second.hash
    assert load_plan(first.canonical()).hash == first.hash


def test_seed_budget():
    plan = plan_for(ROOT / "fixtures")
    assert len(plan.cells) == 48 and plan.budget.requests == 48
    assert plan.budget.paid and plan.budget.worst_case_usd == pytest.approx(2.88)
    assert PAID.worst_case_usd == pytest.approx((200_000 * 0.25 + 2048 * 1.25) / 1e6)
    text = summary(plan)
    assert plan.hash in text and "$2.88" in text and "48" in text


def test_plan_show_gives_the_expected_spend_beside_the_reservation_and_the_endpoint():
    routed = PAID.model_copy(update={"base_url": "https://openrouter.ai/api/v1"})
    plan = plan_for(ROOT / "fixtures", routed)
    tokens = plan.budget.expected_prompt_tokens
    assert 48 * 100 < tokens < 48 * 1000  # v1 prompts are a few hundred tokens
    expected = (tokens * 0.25 + 48 * 2048 * 1.25) / 1e6
    assert plan.budget.expected_usd == pytest.approx(expected, abs=1e-6)
    assert plan.budget.expected_usd < plan.budget.worst_case_usd / 10
    text = summary(plan)
    assert f"expected       about ${expected:.4f}" in text
    assert "endpoint       https://openrouter.ai/api/v1" in text


def test_a_reservation_below_one_requests_worst_case_is_refused():
    with pytest.raises(ValueError, match=r"below what one request can cost, \$0.05256"):
        ModelProfile.model_validate({**PAID.model_dump(), "reservation_usd": 0.01})


@pytest.mark.parametrize(
    "relative",
    [
        "v1/post-slug/task.toml",
        "v1/income-tax/reference_duplicated.py",
        "v1/card-mask/inconsistent/module.py",
    ],
)
def test_any_fixture_byte_changes_the_plan_hash(tmp_path, relative):
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    before = plan_for(tmp_path / "fixtures").hash
    path = tmp_path / "fixtures" / relative
    path.write_text(path.read_text() + "\n# one more line\n")
    assert plan_for(tmp_path / "fixtures").hash != before


@pytest.mark.parametrize(
    "change",
    [{"repeats": 3}, {"schedule": "subject-rotated-v1"}],
)
def test_run_changes_change_the_hash(change):
    assert plan_for(ROOT / "fixtures", **change).hash != plan_for(ROOT / "fixtures").hash


def test_profile_changes_change_the_hash():
    cheaper = PAID.model_copy(update={"ceiling_usd": 1.0})
    assert plan_for(ROOT / "fixtures", cheaper).hash != plan_for(ROOT / "fixtures").hash


def test_cells_over_the_request_cap_are_excluded_before_authorization():
    capped = PAID.model_copy(update={"request_bytes_cap": 1100})
    plan = plan_for(ROOT / "fixtures", capped)
    excluded = [c for c in plan.cells if c.excluded]
    assert excluded and all(c.excluded.startswith("request-over-cap") for c in excluded)
    assert plan.budget.requests == len(plan.cells) - len(excluded)
    assert "excluded" in summary(plan)


def test_free_profile_needs_no_budget():
    plan = plan_for(ROOT / "fixtures", ModelProfile(provider="simulated", model="sim"))
    assert not plan.budget.paid and plan.budget.worst_case_usd == 0


@pytest.mark.parametrize(
    "field", ["reservation_usd", "ceiling_usd", "timeout_seconds", "follow_rate"]
)
@pytest.mark.parametrize("value", [float("inf"), float("nan"), float("-inf")])
def test_money_and_limits_are_finite(field, value):
    with pytest.raises(ValueError, match=field):
        PAID.model_validate({**PAID.model_dump(), field: value})


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_price_caps_are_finite(value):
    with pytest.raises(ValueError, match="prompt"):
        PriceCaps(prompt=value, completion=1.0)


def test_paid_profile_needs_a_ceiling_that_admits_one_request():
    with pytest.raises(ValueError, match="admits no request"):
        PAID.model_validate({**PAID.model_dump(), "ceiling_usd": 0.0})


def test_reservations_round_up_and_ceilings_down_in_nano_dollars():
    from assay.providers.base import nano_down, nano_up

    assert (nano_up(0.06), nano_down(2.88)) == (60_000_000, 2_880_000_000)
    assert (nano_up(1e-10), nano_down(1e-10)) == (1, 0)
    assert (nano_up(0.0600000001), nano_down(2.8799999999)) == (60_000_001, 2_879_999_999)
    # a reservation a hair above $0.06 admits 47 requests under $2.88, not 48
    plan = plan_for(ROOT / "fixtures", PAID.model_copy(update={"reservation_usd": 0.0600000001}))
    assert plan.budget.admitted_requests == 47 and plan.budget.partial


def test_plan_states_how_many_requests_the_ceiling_admits():
    # the seed's Haiku profile on 144 requests: $2.88 at $0.06 admits 48
    plan = plan_for(ROOT / "fixtures", PAID, repeats=6)
    assert (plan.budget.requests, plan.budget.admitted_requests) == (144, 48)
    assert plan.budget.worst_case_usd == pytest.approx(2.88)
    text = summary(plan)
    assert "the ceiling admits 48 of 144 requests" in text and "WARNING" in text
    full = plan_for(ROOT / "fixtures")
    assert "the ceiling admits 48 of 48 requests" in summary(full)
    assert "WARNING" not in summary(full)


def test_a_qualification_plan_sends_a_fixed_sample_of_the_grid():
    full = plan_for(ROOT / "fixtures")
    qualifying = plan_for(ROOT / "fixtures", qualifies=True)
    assert qualifying.qualification is not None
    assert (qualifying.qualification.sample, qualifying.qualification.of) == (12, 48)
    assert {c.cell_id for c in qualifying.cells} < {c.cell_id for c in full.cells}
    assert qualifying.budget.requests == 12 and qualifying.budget.worst_case_usd == pytest.approx(
        0.72
    )
    assert qualifying.content_hash == full.content_hash, "its answers compare with the study's"
    assert qualifying.hash != full.hash and full.qualification is None
    assert plan_for(ROOT / "fixtures", qualifies=True, sample=5).budget.requests == 5
    assert plan_for(ROOT / "fixtures", qualifies=True).canonical() == qualifying.canonical()

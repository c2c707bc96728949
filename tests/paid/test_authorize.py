from pathlib import Path

import pytest

from assay.config.params import RunSpec
from assay.core.records import CallKey
from assay.paid.authorize import (
    AuthorizationError,
    SpendRefused,
    check_spendable,
    decide,
    issue_token,
)
from assay.paid.ledger import Ledger, LedgerBindingError
from assay.providers.base import ModelProfile

from .test_plan import PAID, plan_for

ROOT = Path(__file__).resolve().parents[2]


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


# --- the authorization is consumed, not copied ---------------------------------------------


def authorized(plan, token):
    return RunSpec(
        model="m",
        scenario="v1",
        allow_paid=True,
        authorization=plan.hash,
        plan_ref=plan.hash,
        authorization_token=token,
    )


def spendable(plan, spec, root, ledger_root="ledger"):
    ledger = Ledger.at(root, plan.run, plan.hash)
    check_spendable(plan, spec, ledger, ledger.state(), ledger_root=ledger_root)


def test_issued_token_lets_its_own_ledger_spend(plan, tmp_path):
    root = tmp_path / "ledger"
    token = issue_token(plan, authorized(plan, None), root=root, ledger_root="ledger")
    assert len(token) == 32
    spendable(plan, authorized(plan, token), root)


@pytest.mark.parametrize(
    "case, message",
    [
        ("no-token", "authorization_token is missing"),
        ("ledger-absent", "belongs to a ledger that is not here"),
        ("other-token", "is not the one the ledger"),
        ("other-root-setting", "but is now at"),
        ("folder-moved", "but is now at"),
    ],
)
def test_refused_before_anything_is_sent(plan, tmp_path, case, message):
    root = tmp_path / "ledger"
    token = issue_token(plan, authorized(plan, None), root=root, ledger_root="ledger")
    spec, setting = authorized(plan, token), "ledger"
    if case == "no-token":
        spec = authorized(plan, None)
    elif case == "ledger-absent":
        root = tmp_path / "elsewhere"
    elif case == "other-token":
        spec = authorized(plan, "0" * 32)
    elif case == "other-root-setting":
        setting = "ledger-moved"
    elif case == "folder-moved":
        (tmp_path / "moved").mkdir()
        root = tmp_path / "moved" / "ledger"
        (tmp_path / "ledger").rename(root)
    with pytest.raises(SpendRefused, match=message) as refused:
        spendable(plan, spec, root, setting)
    assert "\n" not in str(refused.value) and "nothing was sent" in str(refused.value)


def test_token_renews_while_unspent_and_never_after(plan, tmp_path):
    root = tmp_path / "ledger"
    first = issue_token(plan, authorized(plan, None), root=root, ledger_root="ledger")
    second = issue_token(plan, authorized(plan, first), root=root, ledger_root="ledger")
    assert second != first
    with pytest.raises(SpendRefused, match="is not the one the ledger"):
        spendable(plan, authorized(plan, first), root)
    ledger = Ledger.open(root, plan.run, plan.hash, paid=True)
    ledger.write_intent(CallKey(cell_id="c", step=1), request_digest="d", reservation_nano_usd=1)
    with pytest.raises(LedgerBindingError, match="already began spending"):
        issue_token(plan, authorized(plan, second), root=root, ledger_root="ledger")


def test_a_token_whose_ledger_is_elsewhere_cannot_be_renewed(plan, tmp_path):
    with pytest.raises(SpendRefused, match="was already authorized"):
        issue_token(plan, authorized(plan, "f" * 32), root=tmp_path, ledger_root="ledger")
    assert not any(tmp_path.iterdir())


def test_second_process_on_the_same_ledger_is_refused(plan, tmp_path):
    ledger = Ledger.open(tmp_path, plan.run, plan.hash, paid=True)
    second = Ledger.at(tmp_path, plan.run, plan.hash)
    with (
        ledger.exclusive(),
        pytest.raises(LedgerBindingError, match="another process is executing"),
        second.exclusive(),
    ):
        pass


def test_a_run_replanned_after_it_sent_names_its_ledger_and_the_ways_on(plan, tmp_path):
    """Neither the stage's decision nor `assay authorize` calls it a ledger that is not here."""
    spent = "e" * 64
    ledger = Ledger.open(tmp_path, plan.run, spent, paid=True)
    ledger.write_intent(CallKey(cell_id="c", step=1), request_digest="d", reservation_nano_usd=1)
    spec = RunSpec(model="m", scenario="v1", allow_paid=True, authorization=spent, plan_ref=spent)
    named = f"already sent under plan {spent} (its ledger {tmp_path / plan.run / spent} holds 0"
    with pytest.raises(AuthorizationError, match=r"^run 'r' already sent") as stage:
        decide(plan, spec, ledger_root=tmp_path)
    renewing = spec.model_copy(update={"authorization_token": "f" * 32})
    with pytest.raises(SpendRefused) as command:
        issue_token(plan, renewing, root=tmp_path, ledger_root="ledger")
    for refusal in (str(stage.value), str(command.value)):
        assert named in refusal and f"an edit since gives it plan {plan.hash}" in refusal
        assert "uv run assay run add r-2 --like r" in refusal
        assert "not here" not in refusal

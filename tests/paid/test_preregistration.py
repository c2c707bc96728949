"""A run keeps the analysis it preregistered once begun, and a stale authorization names what of
the preregistration changed (assay.paid.preregistration), on plans built from the v1 fixtures
and ledgers in a temporary folder."""

from pathlib import Path

import pytest

from assay.config.params import RunSpec
from assay.core.errors import AuthorizationError
from assay.core.records import CallKey
from assay.evidence.plan import AnalysisPlan, Plan
from assay.paid.authorize import decide, issue_token
from assay.paid.ledger import Ledger
from assay.paid.preregistration import (
    keep_preregistration,
    ledger_plan,
    record_plan,
    replanned_free_run,
    stale_authorization,
)
from assay.providers.base import ModelProfile

from .test_plan import plan_for

ROOT = Path(__file__).resolve().parents[2]
STRICTER = {"analysis": AnalysisPlan(alpha=0.01)}


@pytest.fixture(scope="module")
def plan() -> Plan:
    return plan_for(ROOT / "fixtures")


@pytest.fixture(scope="module")
def free() -> Plan:
    return plan_for(ROOT / "fixtures", ModelProfile(provider="simulated", model="s"))


def begin(root: Path, plan: Plan, *, keep: bool = True) -> None:
    """The run's ledger under ``plan`` with one intent (and the plan kept in it)."""
    ledger = Ledger.open(root, plan.run, plan.hash, paid=plan.budget.paid)
    if keep:
        record_plan(ledger.directory, plan)
    ledger.write_intent(CallKey(cell_id="c", step=1), request_digest="d", reservation_nano_usd=1)


def test_a_begun_run_keeps_its_preregistered_analysis(free: Plan, tmp_path: Path) -> None:
    assert keep_preregistration(free, tmp_path) == free  # not begun: nothing to keep
    begin(tmp_path, free)
    edited = free.model_copy(update=STRICTER)
    assert edited.hash != free.hash
    kept = keep_preregistration(edited, tmp_path)
    assert kept.hash == free.hash and kept.preregistration.alpha == 0.05
    assert replanned_free_run(kept, tmp_path) == ("", ())


def test_more_repeats_are_a_new_plan_that_says_so(free: Plan, tmp_path: Path) -> None:
    begin(tmp_path, free)
    more = plan_for(ROOT / "fixtures", free.model, repeats=3).model_copy(update=STRICTER)
    assert keep_preregistration(more, tmp_path) == more
    earlier, changes = replanned_free_run(more, tmp_path)
    assert earlier == free.hash
    assert [change.text() for change in changes] == ["alpha 0.05 → 0.01", "repeats 2 → 3"]


def test_a_ledger_without_its_plan_keeps_nothing(free: Plan, tmp_path: Path) -> None:
    begin(tmp_path, free, keep=False)
    edited = free.model_copy(update=STRICTER)
    assert ledger_plan(tmp_path, free.run, free.hash) is None
    assert keep_preregistration(edited, tmp_path) == edited


def test_a_copy_whose_hash_is_not_its_folder_is_not_its_plan(free: Plan, tmp_path: Path) -> None:
    folder = Ledger.at(tmp_path, free.run, "f" * 64).directory
    record_plan(folder, free)
    assert ledger_plan(tmp_path, free.run, "f" * 64) is None
    assert ledger_plan(tmp_path, free.run, free.hash) is None


def test_a_stale_authorization_names_the_changed_fields(plan: Plan, tmp_path: Path) -> None:
    spec = RunSpec(
        model="m",
        scenario="v1",
        allow_paid=True,
        authorization=plan.hash,
        plan_ref=plan.hash,
    )
    issue_token(plan, spec, root=tmp_path, ledger_root="ledger")
    assert ledger_plan(tmp_path, plan.run, plan.hash) == plan  # what was approved, kept
    edited = plan.model_copy(update=STRICTER)
    line = stale_authorization(edited, spec, tmp_path)
    assert line == (
        f"run 'r': its preregistered analysis changed since it was authorized (alpha 0.05 → "
        f"0.01: plan {plan.hash} → {edited.hash}); nothing is sent until it is authorized "
        "again: `uv run assay plan show r`, then `uv run assay authorize r --plan-hash "
        f"{edited.hash}` (or undo the edit)"
    )
    with pytest.raises(AuthorizationError) as raised:
        decide(edited, spec, ledger_root=tmp_path)
    assert str(raised.value) == line
    assert stale_authorization(plan, spec, tmp_path) is None

    more = plan_for(ROOT / "fixtures", plan.model, repeats=3).model_copy(update=STRICTER)
    both = stale_authorization(more, spec, tmp_path)
    assert both is not None and "(alpha 0.05 → 0.01, repeats 2 → 3: plan" in both
    cheaper = plan.model.model_copy(update={"ceiling_usd": 1.0})
    priced = plan_for(ROOT / "fixtures", cheaper).model_copy(update=STRICTER)
    also = stale_authorization(priced, spec, tmp_path)
    assert also is not None and "(alpha 0.05 → 0.01 and other settings: plan" in also

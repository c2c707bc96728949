"""Qualified routes (``assay.paid.qualification``): what a qualification run found, read from a
real ledger (the case table), and what ``assay authorize`` and ``assay plan show`` say of a
route with no qualification run, one waiting to be sent, one that failed and one that passed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay import evidence
from assay.config.params import Params, validate_params
from assay.core.records import Usage
from assay.evidence import paths
from assay.evidence.plan import Plan
from assay.paid import qualification
from assay.paid.ledger import Ledger
from assay.paid.ledger_records import Outcome
from assay.paid.seal import seal
from assay.providers.base import ModelProfile

from .test_plan import plan_for

ROOT = Path(__file__).resolve().parents[2]
CASES = yaml.safe_load((Path(__file__).parent / "cases" / "qualification.yaml").read_text())
REPRO = "uv run --env-file .env dvc repro"
QUALIFY, STUDY = "haiku-qualify", "haiku-v1"


def params_at(ledger: Path, change: Any = None) -> Params:
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["ledger_root"] = str(ledger)
    if change is not None:
        change(raw)
    return validate_params(raw)


def run_plan(params: Params, run: str) -> Plan:
    spec = params.runs[run]
    planned = plan_for(
        ROOT / "fixtures",
        params.models[spec.model],
        repeats=spec.repeats,
        qualifies=spec.qualifies,
        sample=spec.sample,
    )
    return planned.model_copy(update={"run": run})


def answer(call: int, case: dict[str, Any]) -> Outcome:
    fields: dict[str, Any] = {
        "status": "completed",
        "reason": None,
        "halt": False,
        "usage": Usage(prompt_tokens=812, completion_tokens=20),
        "cost_usd": 0.000228,
        "generation_id": f"gen-{call}",
        "served_model": "anthropic/claude-3-haiku",
        "served_provider": "Amazon Bedrock",
        "finish_reason": "stop",
        "detail": None,
        "no_charge_proven": False,
        "latency_seconds": 1.5,
    }
    fields.update(case.get("answer", {}).get(call, {}))
    fields.pop("interrupted", None)
    return Outcome(**fields)


def send(plan: Plan, ledger_root: Path, case: dict[str, Any]) -> None:
    """The qualification run sent as the case says: sealed, then one intent and one outcome
    per call, as the send stage writes them."""
    token = Ledger.authorize(ledger_root, plan.run, plan.hash, ledger_root=str(ledger_root))
    assert token
    ledger = Ledger.open(ledger_root, plan.run, plan.hash, paid=True)
    evidence.write_plan(plan)
    for stage in paths.SCENARIO_STAGES:
        paths.scenario_dir(stage, plan.scenario).mkdir(parents=True, exist_ok=True)
    seal(ledger.directory, plan)
    calls = [cell.call(1) for cell in plan.sendable]
    for number, key in enumerate(calls[: case.get("stop_after", len(calls))], start=1):
        ledger.write_intent(key, request_digest="0" * 64, reservation_nano_usd=60_000_000)
        if case.get("answer", {}).get(number, {}).get("interrupted"):
            break
        ledger.write_outcome(key, answer(number, case), raw=b"{}", text="x")
    if "halt" in case:
        ledger.write_halt(case["halt"])


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["id"])
def test_what_a_qualification_found(case: dict[str, Any], here: Path) -> None:
    aliases = case.get("aliases", [])
    params = params_at(
        here / "ledger",
        lambda raw: raw["models"]["haiku-3-bedrock"].update(aliases=aliases),
    )
    plan = run_plan(params, QUALIFY)
    assert plan.qualification is not None and len(plan.sendable) == 12
    send(plan, here / "ledger", case)
    (found,) = qualification.findings(run_plan(params, STUDY), params)
    assert (found.run, found.state, found.answered, found.calls) == (
        QUALIFY, case["state"], case["answered"], 12
    )  # fmt: skip
    assert found.plan_hash == plan.hash
    for problem, expected in zip(found.problems, case.get("problems", []), strict=True):
        assert expected in problem
    assert case.get("text", found.text()) in found.text()
    refused = qualification.refusal(run_plan(params, STUDY), params, repro=REPRO)
    if found.passed:
        assert refused is None
    else:
        assert refused is not None and "is not qualified" in refused
        assert f"uv run assay run add {STUDY}-qualify --like {STUDY} --qualifies" in refused


def test_a_route_without_a_qualification_run(here: Path) -> None:
    params = params_at(here / "ledger", lambda raw: raw["runs"].pop(QUALIFY))
    study = run_plan(params, STUDY)
    assert qualification.findings(study, params) == ()
    refused = qualification.refusal(study, params, repro=REPRO)
    assert refused == (
        "run 'haiku-v1': its route (openrouter anthropic/claude-3-haiku pinned to amazon-bedrock "
        "at https://openrouter.ai/api/v1) is not qualified: no qualification run is declared on "
        "it. A small paid run on the route must answer every call as the declared model and "
        "provider first: `uv run assay run add haiku-v1-qualify --like haiku-v1 --qualifies`, "
        "`uv run dvc repro`, `uv run assay plan show haiku-v1-qualify`, `uv run assay authorize "
        "haiku-v1-qualify --plan-hash HASH`, `uv run --env-file .env dvc repro`; then authorize "
        "haiku-v1 again (docs/paid-runs.md)"
    )
    (line,) = qualification.lines(study, params, repro=REPRO)
    assert line.startswith("qualification  none declared on this route: `assay authorize` ")


def test_a_qualification_awaiting_authorization_then_authorized(here: Path) -> None:
    params = params_at(here / "ledger")
    study = run_plan(params, STUDY)
    refused = qualification.refusal(study, params, repro=REPRO)
    assert refused is not None
    assert "haiku-qualify: awaiting authorization, nothing sent. Send it first: " in refused
    assert "`uv run assay authorize haiku-qualify --plan-hash HASH`" in refused
    assert qualification.lines(study, params, repro=REPRO)[0] == (
        "qualification  haiku-qualify: awaiting authorization, nothing sent"
    )
    authorized = params_at(
        here / "ledger",
        lambda raw: raw["runs"][QUALIFY].update(allow_paid=True, authorization_token="t" * 32),
    )
    refused = qualification.refusal(study, authorized, repro=REPRO)
    assert refused is not None and "haiku-qualify: authorized, not sent yet" in refused


def test_only_runs_on_the_same_route_qualify_it(here: Path) -> None:
    """A qualification through another endpoint, pin or model is another route's."""
    params = params_at(here / "ledger")
    send(run_plan(params, QUALIFY), here / "ledger", {})
    study = run_plan(params, STUDY)
    assert qualification.refusal(study, params, repro=REPRO) is None
    for field, value in (
        ("base_url", "https://example.invalid/api/v1"),
        ("provider_pin", "anthropic"),
        ("model", "anthropic/claude-3-haiku:beta"),
    ):
        moved = study.model_copy(update={"model": study.model.model_copy(update={field: value})})
        assert qualification.findings(moved, params) == ()
        assert qualification.refusal(moved, params, repro=REPRO) is not None


def test_a_route_is_not_qualified_by_a_profile_edited_after_sending(here: Path) -> None:
    """The route a qualification was sent on is its sealed plan's, whatever params.yaml says now."""
    params = params_at(here / "ledger")
    send(run_plan(params, QUALIFY), here / "ledger", {})
    edited = params_at(
        here / "ledger",
        lambda raw: raw["models"]["haiku-3-bedrock"].update(base_url="https://example.invalid/v1"),
    )
    (found,) = qualification.findings(run_plan(edited, STUDY), edited)
    assert found.state == "failed" and "it was sent on another route" in found.problems[0]


def test_plan_show_names_what_the_qualification_found(here: Path) -> None:
    params = params_at(here / "ledger")
    qualify = run_plan(params, QUALIFY)
    send(qualify, here / "ledger", {})
    study = run_plan(params, STUDY)
    shown = qualification.lines(study, params, repro=REPRO)
    assert shown[0].startswith("qualification  haiku-qualify: passed (12 of 12 calls answered")
    assert shown[1] == "route          qualified: `assay authorize` may authorize this run"
    own = qualification.lines(qualify, params, repro=REPRO)
    assert own[0].startswith("qualifies      the route openrouter anthropic/claude-3-haiku")
    assert "12 of the scenario's 48 cells" in own[0]
    assert own[1].startswith("found          haiku-qualify: passed")


def test_free_runs_and_qualification_runs_need_none(here: Path) -> None:
    params = params_at(here / "ledger")
    free = plan_for(ROOT / "fixtures", ModelProfile(provider="simulated", model="s"))
    assert qualification.refusal(free, params, repro=REPRO) is None
    assert qualification.lines(free, params, repro=REPRO) == []
    assert qualification.refusal(run_plan(params, QUALIFY), params, repro=REPRO) is None


def test_the_default_haiku_route_has_its_qualification_declared() -> None:
    params = validate_params(yaml.safe_load((ROOT / "params.yaml").read_text()))
    spec = params.runs[QUALIFY]
    assert spec.qualifies and spec.sample == 12 and not spec.allow_paid
    for run in (STUDY, "haiku-context"):
        assert qualification.Route.of(params.profile_for(run)) == qualification.Route.of(
            params.profile_for(QUALIFY)
        )
    assert json.loads(json.dumps(spec.model_dump()))["qualifies"] is True


def test_a_study_sent_before_it_was_declared_a_qualification_does_not_qualify(here: Path) -> None:
    """Declaring `qualifies: true` on a run that was sent as a study does not make it one: the
    plan it was sent under says what it was."""
    params = params_at(
        here / "ledger",
        lambda raw: raw["runs"][QUALIFY].update(qualifies=False, sample=None),
    )
    sent = run_plan(params, QUALIFY)
    assert sent.qualification is None and len(sent.sendable) == 48
    send(sent, here / "ledger", {})
    declared = params_at(here / "ledger")
    (found,) = qualification.findings(run_plan(declared, STUDY), declared)
    assert found.state == "failed"
    assert found.problems == ("it was planned and sent as a study, not as a qualification run",)

"""``provider: inspect-log``: a log matched with its run's plan (every case of
cases/inspect_log.yaml), the answers a matched log gives, the refusal of one that does not
match, and what a plan binds of a real log written by Inspect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.config.params import AnalysisPlan, RunSpec
from assay.core.digest import digest_of, sha256_hex
from assay.core.records import CallKey
from assay.evidence.plan import Plan
from assay.fixtures.scenarios import fixture_sources, load_scenario
from assay.inspect.samples import LoggedSample
from assay.paid.plan import build_plan, request_sizes, summary
from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.inspect_log import (
    SHOWN_PROBLEMS,
    InspectLogProvider,
    InspectLogRefused,
    LogSource,
    match,
    provider_for,
    refusal,
)

ROOT = Path(__file__).resolve().parents[2]
CASES = yaml.safe_load((Path(__file__).parent / "cases" / "inspect_log.yaml").read_text())["cases"]
MODEL = "openai-api/local/tiny"
ANSWER = "```python\ndef implement(value):\n    return value\n```"
PROFILE = ModelProfile(provider="inspect-log", model=MODEL, log="inspect-logs/run.eval")
SOURCE = LogSource(
    log="inspect-logs/run.eval",
    log_sha256="0" * 64,
    task="assay/v1",
    model=MODEL,
    eval_id="e",
    created="2026-12-07T00:00:00+00:00",
    status="success",
    samples=48,
)


@pytest.fixture(scope="module")
def v1() -> tuple[Plan, dict[str, str]]:
    """v1's plan for an inspect-log profile (48 cells), and each prompt by its digest."""
    scenario = load_scenario("v1", ROOT / "fixtures")
    texts = {(s.id, a.name): _render(s, a) for s in scenario.subjects for a in s.arms}
    plan = build_plan(
        run_id="r",
        run=RunSpec(model="m", scenario="v1"),
        profile=PROFILE,
        scenario=scenario,
        fixture_sources=digest_of(fixture_sources("v1", ROOT / "fixtures")),
        prompts=request_sizes(texts, lambda p: len(p.encode())),
        analysis=AnalysisPlan(),
        tools={"python": "3.11"},
        runtime=SOURCE.model_dump(mode="json"),
    )
    return plan, {sha256_hex(text): text for text in texts.values()}


def _render(subject: Any, arm: Any) -> str:
    from assay.science.render import render_input

    return render_input(subject, arm, "v1").text


def clean_log(plan: Plan, prompts: dict[str, str]) -> list[LoggedSample]:
    return [
        LoggedSample(
            id=cell.prompt_digest,
            epoch=cell.repeat,
            prompt=prompts[cell.prompt_digest],
            completion=ANSWER,
            served_model="tiny",
            prompt_tokens=100,
            completion_tokens=10,
            seconds=1.5,
        )
        for cell in plan.cells
    ]


def edited(
    case: dict[str, Any], plan: Plan, samples: list[LoggedSample]
) -> tuple[Plan, LogSource, list[LoggedSample]]:
    """The plan, source and log of a case (cases/inspect_log.yaml says what each key does)."""
    log: list[LoggedSample | None] = list(samples)
    source = SOURCE

    def change(index: int, **update: Any) -> None:
        log[index] = samples[index].model_copy(update=update)

    if "epoch" in case:
        index, epoch = case["epoch"]
        change(index, epoch=3 - samples[index].epoch if epoch == "other" else epoch)
    if "sample_id" in case:
        change(case["sample_id"][0], id=case["sample_id"][1])
    if "alter" in case:
        prompt = samples[case["alter"]].prompt or ""
        change(case["alter"], prompt=prompt.replace("Python", "python", 1))
    if "input_problem" in case:
        change(case["input_problem"][0], prompt=None, input_problem=case["input_problem"][1])
    if "error" in case:
        change(case["error"][0], error=case["error"][1], completion="")
    if "completion" in case:
        change(case["completion"][0], completion=case["completion"][1])
    if "prefill" in case:
        log = [s.model_copy(update={"prefill": case["prefill"]}) for s in log if s is not None]
        source = source.model_copy(update={"prefills": (case["prefill"],)})
    if "prefills" in case:
        source = source.model_copy(update={"prefills": tuple(sorted(case["prefills"]))})
    if "model" in case:
        source = source.model_copy(update={"model": case["model"]})
    if "steps" in case:
        cells = tuple(c.model_copy(update={"steps": case["steps"]}) for c in plan.cells)
        plan = plan.model_copy(update={"cells": cells})
    if "same_prompt" in case:
        first, second = case["same_prompt"]
        cells = list(plan.cells)
        twin = cells[second].model_copy(
            update={"prompt_digest": cells[first].prompt_digest, "repeat": cells[first].repeat}
        )
        cells[second] = twin
        plan = plan.model_copy(update={"cells": tuple(cells)})
        log[second] = None
    if "duplicate" in case:
        log.insert(case["duplicate"] + 1, samples[case["duplicate"]])
    if "drop" in case:
        log[case["drop"]] = None
    return plan, source, [sample for sample in log if sample is not None]


def placeholders(plan: Plan) -> dict[str, Any]:
    names: dict[str, Any] = {}
    for index, cell in enumerate(plan.cells):
        where = f"{cell.subject}/{cell.arm}"
        names |= {
            f"c{index}": f"sample {cell.prompt_digest} epoch {cell.repeat} (cell {where}/r{cell.repeat})",
            f"d{index}": cell.prompt_digest,
            f"r{index}": cell.repeat,
            f"o{index}": 3 - cell.repeat,
            f"s{index}": where,
        }
    return names


def test_the_case_table_covers_every_way_a_log_is_refused():
    refused = {case["id"] for case in CASES if "problems" in case}
    assert len(refused) >= 10 and len({case["id"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["id"])
def test_each_case(case: dict[str, Any], v1: tuple[Plan, dict[str, str]]):
    plan, prompts = v1
    plan, source, log = edited(case, plan, clean_log(plan, prompts))
    matched = match(plan, source, log)
    if "problems" in case:
        names = placeholders(plan)
        expected = [line.format(**names) for line in case["problems"]]
        assert len(matched.problems) == len(expected), matched.problems
        for found, wanted in zip(matched.problems, expected, strict=True):
            assert found.startswith(wanted), (found, wanted)
        assert matched.answers == {}, "nothing is read from a log that does not match"
        return
    assert matched.problems == ()
    assert set(matched.answers) == {cell.call(1) for cell in plan.cells}
    for index, fields in case["answers"].items():
        answer = matched.answers[plan.cells[index].call(1)]
        for name, value in fields.items():
            assert getattr(answer, name) == value, (name, answer)


def test_a_matched_answer_keeps_what_inspect_recorded(v1: tuple[Plan, dict[str, str]]):
    plan, prompts = v1
    log = clean_log(plan, prompts)
    answer = match(plan, SOURCE, log).answers[plan.cells[0].call(1)]
    assert answer.status == "completed" and answer.text == ANSWER
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (100, 10)
    assert answer.served_provider == "inspect-log" and answer.served_model == "tiny"
    assert answer.latency_seconds == 1.5 and not answer.halt
    assert answer.cost_usd is None, "assay knows nothing of what the answer cost"


def test_the_provider_answers_each_call_with_its_sample(v1: tuple[Plan, dict[str, str]]):
    plan, prompts = v1
    log = [
        s.model_copy(update={"completion": f"answer {s.id[:6]} {s.epoch}"})
        for s in clean_log(plan, prompts)
    ]
    provider = InspectLogProvider(match(plan, SOURCE, log).answers)
    for cell in plan.cells:
        request = ProviderRequest(key=cell.call(1), prompt=prompts[cell.prompt_digest])
        assert provider.complete(request).text == f"answer {cell.prompt_digest[:6]} {cell.repeat}"
    stray = provider.complete(ProviderRequest(key=CallKey(cell_id="x/y/r1", step=1), prompt="p"))
    assert stray.status == "provider-error" and stray.reason == "inspect-log-miss"


def test_a_refusal_names_the_first_problems_and_counts_the_rest():
    problems = [f"sample {n} epoch 1: missing from the log" for n in range(SHOWN_PROBLEMS + 3)]
    text = refusal(SOURCE, problems)
    assert text.startswith(f"Inspect log inspect-logs/run.eval: {SHOWN_PROBLEMS + 3} problems")
    assert "sample 0 epoch 1" in text and f"sample {SHOWN_PROBLEMS - 1} epoch 1" in text
    assert f"sample {SHOWN_PROBLEMS} epoch 1" not in text and "… and 3 more" in text


def test_a_log_that_changed_since_its_plan_is_refused(tmp_path, monkeypatch, v1):
    plan, _ = v1
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inspect-logs").mkdir()
    (tmp_path / "inspect-logs" / "run.eval").write_bytes(b"another log")
    with pytest.raises(InspectLogRefused, match=r"has sha256 [0-9a-f]{64}, not the 0{64} its plan"):
        provider_for(plan)
    (tmp_path / "inspect-logs" / "run.eval").unlink()
    with pytest.raises(InspectLogRefused, match="inspect-logs/run.eval is gone"):
        provider_for(plan)


def test_a_plan_says_where_the_answers_come_from_and_that_it_spends_nothing(v1):
    plan, _ = v1
    assert not plan.budget.paid and plan.model.is_free and plan.model.answers_fixed
    text = summary(plan)
    assert "read from the Inspect log inspect-logs/run.eval" in text
    assert f"log sha256     {'0' * 64}" in text
    assert "task assay/v1, model openai-api/local/tiny" in text
    assert "which did not control their spend" in text

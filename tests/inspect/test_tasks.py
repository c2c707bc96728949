"""The Inspect task shipped with assay: found as ``assay/<scenario>`` through the entry point,
its samples the rendered prompts byte for byte (id: their sha256, input: the messages assay's
chat adapters send, nothing else: the sample is as blind as the prompt), epochs the repeats; a
chain and a scenario without rendered prompts refused by name."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from inspect_ai._util.registry import registry_lookup

from assay import evidence
from assay.core.digest import sha256_hex
from assay.fixtures.scenarios import load_scenario
from assay.inspect.tasks import TaskRefused, scenario_samples, scenario_task, task_names
from assay.pipeline.render import prompt_rows
from assay.providers.chat import user_messages

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rendered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A repository whose pipeline rendered v1 (the working directory): each prompt by digest."""
    monkeypatch.chdir(tmp_path)
    scenario = load_scenario("v1", ROOT / "fixtures")
    evidence.write_scenario(scenario)
    rows = prompt_rows(scenario)
    evidence.write_table(evidence.PROMPTS, "v1", rows)
    return {sha256_hex(row.prompt): row.prompt for row in rows}


def test_a_sample_is_a_rendered_prompt_byte_for_byte(rendered: dict[str, str]):
    samples = scenario_samples("v1")
    assert len(samples) == 24 == len(rendered)
    assert [s.id for s in samples] == sorted(rendered), "in the order of their ids"
    for sample in samples:
        assert isinstance(sample.input, list)
        asked = [{"role": m.role, "content": m.content} for m in sample.input]
        assert asked == user_messages(rendered[str(sample.id)])
        assert sha256_hex(sample.input[0].text) == sample.id


def test_a_sample_carries_nothing_the_prompt_does_not(rendered: dict[str, str]):
    scenario = load_scenario("v1", ROOT / "fixtures")
    hidden = {s.id for s in scenario.subjects} | {s.task.family for s in scenario.subjects}
    hidden |= {arm.name for s in scenario.subjects for arm in s.arms}
    for sample in scenario_samples("v1"):
        assert not sample.metadata and sample.target == "" and sample.choices is None
        assert sample.sandbox is None and sample.files is None and sample.setup is None
        around = json.dumps(sample.model_dump(exclude={"input"}), default=str)
        assert not [word for word in hidden if word in around], around


def test_the_task_asks_each_prompt_once_per_repeat(rendered: dict[str, str]):
    made = scenario_task("v1")
    assert made.name == "assay/v1" and made.epochs == 2
    assert made.scorer is None or made.scorer == []
    assert len(made.dataset) == 24


def test_the_entry_point_makes_every_scenario_a_task_named_assay_slash_it(rendered):
    (point,) = [ep for ep in entry_points(group="inspect_ai") if ep.name == "assay"]
    assert point.value == "assay.inspect.tasks"
    assert {"v1", "layered", "dose", "chain", "codebase"} <= set(task_names())
    found = registry_lookup("task", "assay/v1")
    assert found is not None
    assert len(found().dataset) == 24  # type: ignore[operator]


def test_a_chain_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)  # nothing rendered here: refused for what it is, all the same
    with pytest.raises(TaskRefused, match=r"^assay/chain: a chain cell is 5 calls, each prompt"):
        scenario_samples("chain")


def test_a_scenario_without_rendered_prompts_is_refused_with_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TaskRefused) as refused:
        scenario_samples("dose")
    message = str(refused.value)
    assert message.startswith("assay/dose: the samples are the prompts the pipeline rendered")
    assert "`uv run dvc repro render`" in message and "\n" not in message

"""The simulated stand-in behaves sensibly on every scenario: it follows the convention the
prompt shows, context padding changes nothing, a chain's own earlier steps are its nearest
callers, distant callers pull when the target has none, and it sometimes calls its own step."""

from pathlib import Path

import pytest

from assay.fixtures.chain import append_step, earlier_steps_called
from assay.fixtures.model import Arm, References, SourceFile, Subject, Task, Vector
from assay.fixtures.scenarios import load_scenario
from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.simulated import (
    DISTANT_PULL,
    SimulatedProvider,
    answer_book,
    delegating_answer,
    shown_files,
)
from assay.science.render import PROMPT_PROFILES, render_files, render_input
from assay.structure import score

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scenarios():
    return {name: load_scenario(name, ROOT / "fixtures") for name in ("v1", "layered", "chain",
                                                                       "context")}  # fmt: skip


def _provider(subjects, **profile):
    return SimulatedProvider(ModelProfile(provider="simulated", model="s", **profile),
                             answer_book(subjects))  # fmt: skip


def _probability(provider, prompt):
    return provider.duplication_probability(prompt, provider._entry(prompt))


@pytest.mark.parametrize("name", ["v1", "layered"])
def test_two_arm_sets_duplicate_more_in_the_inconsistent_arm(scenarios, name):
    scenario = scenarios[name]
    provider = _provider(scenario.subjects)
    for subject in scenario.subjects:
        clean, inconsistent = (
            _probability(provider, render_input(subject, arm, scenario.prompt_profile).text)
            for arm in ("clean", "inconsistent")
        )
        assert clean == pytest.approx(0.2) and inconsistent > clean, subject.id


def test_context_padding_changes_nothing(scenarios):
    scenario = scenarios["context"]
    provider = _provider(scenario.subjects)
    for subject in scenario.subjects:
        prompts = [render_input(subject, arm, "layered").text for arm in scenario.arms]
        assert shown_files(prompts[-1])[0] == subject.target
        assert len({_probability(provider, p) for p in prompts}) == 1, subject.id
        assert _probability(provider, prompts[0]) > 0.2  # tail-07 pulls


def _step_prompt(subject, arm, earlier):
    files = subject.arm(arm).as_mapping()
    for step, source in enumerate(earlier, start=1):
        files[subject.target] = append_step(files[subject.target], source, step)
    return render_files(subject.task.instruction, files, subject.target,
                        PROMPT_PROFILES["layered"]).text  # fmt: skip


def test_a_chains_own_earlier_steps_are_its_nearest_callers(scenarios):
    scenario = scenarios["chain"]
    provider = _provider(scenario.subjects)
    for subject in scenario.subjects:
        references = subject.task.references
        after_reuse = _probability(provider, _step_prompt(subject, "tail-03", [references.reused]))
        after_copy = _probability(provider, _step_prompt(subject, "tail-03", [references.duplicated]))  # fmt: skip
        first = _probability(provider, _step_prompt(subject, "tail-03", []))
        assert after_reuse < first < after_copy, subject.id


def test_own_step_answers_call_the_latest_step_and_score_as_the_known_ambiguity(scenarios):
    scenario = scenarios["chain"]
    always = _provider(scenario.subjects, own_step_rate=1.0)
    never = _provider(scenario.subjects, own_step_rate=0.0)
    for subject in scenario.subjects:
        task = subject.task
        step_one = _step_prompt(subject, "mess-00", [])
        step_three = _step_prompt(subject, "mess-00", [task.references.reused] * 2)
        assert "implement_step" not in always.complete(ProviderRequest(key="c#1", prompt=step_one)).text  # fmt: skip
        answer = always.complete(ProviderRequest(key="c#3", prompt=step_three)).text
        source = answer.split("```python\n", 1)[1].split("\n```", 1)[0]
        assert earlier_steps_called(source, 3) == (2,), source
        verdict = score(source, helper=task.helper, helper_module=task.helper_module,
                        primitives=task.primitives, version=7)  # fmt: skip
        assert (verdict.verdict, verdict.reason) == ("ambiguous", "no-helper-no-primitive")
        kept = never.complete(ProviderRequest(key="c#3", prompt=step_three)).text
        assert "implement_step" not in kept


def test_own_step_rate_is_a_rate():
    subjects = load_scenario("chain", ROOT / "fixtures").subjects
    provider = _provider(subjects, own_step_rate=0.25, seed=3)
    subject = subjects[0]
    prompt = _step_prompt(subject, "mess-00", [subject.task.references.reused])
    delegated = sum(
        "implement_step_1(" in provider.complete(ProviderRequest(key=f"c{i}#2", prompt=prompt)).text
        for i in range(400)
    )
    assert 60 <= delegated <= 140


def test_delegating_answer_keeps_the_signature():
    reference = "def implement(value: int, *rest, scale=2, **options) -> int:\n    return value\n"
    answer = delegating_answer(reference, 4)
    assert answer.startswith("def implement(value: int, *rest, scale=2, **options):")
    assert "return implement_step_4(value, *rest, scale=scale, **options)" in answer


def _distant_subject(inline_callers: int, neighbour: str | None = None) -> Subject:
    """A new, nearly empty target module; three callers of ``fmt_money`` in other modules."""
    task = Task(id="money-label", family="cosmetic", instruction="Return the money label.",
                helper="fmt_money", helper_module="shop.money", primitives=("str.format",),
                vectors=(Vector(input=1, expected="1.00"), Vector(input=2, expected="2.00"),
                         Vector(input=0, expected="0.00")),
                references=References(
                    reused="from shop.money import fmt_money\n\ndef implement(v):\n    return fmt_money(v)\n",
                    duplicated="def implement(v):\n    return '{:.2f}'.format(v)\n"))  # fmt: skip
    files = [SourceFile(path="shop/money.py", text="def fmt_money(v):\n    return '{:.2f}'.format(v)\n")]  # fmt: skip
    for index in range(3):
        body = "'{:.2f}'.format(v)" if index < inline_callers else "fmt_money(v)"
        files.append(SourceFile(path=f"shop/caller_{index}.py",
                                text=f"from shop.money import fmt_money\n\n\ndef show_{index}(v):\n    return {body}\n"))  # fmt: skip
    target = "from shop.money import fmt_money\n" + (neighbour or "")
    files.append(SourceFile(path="shop/labels.py", text=target))
    return Subject(scenario="codebase", task=task, target="shop/labels.py",
                   arms=(Arm(name="clean", files=tuple(files)),))  # fmt: skip


def test_distant_callers_pull_at_half_weight_when_the_target_has_none():
    clean, inconsistent = _distant_subject(0), _distant_subject(3)
    provider = _provider([clean], follow_rate=0.8)
    probability = {
        name: _probability(provider, render_input(subject, "clean", "layered").text)
        for name, subject in (("clean", clean), ("inconsistent", inconsistent))
    }
    assert probability["clean"] == pytest.approx(0.2)  # the helper's own module is no caller
    assert probability["inconsistent"] == pytest.approx(0.2 + 0.6 * DISTANT_PULL)


def test_a_neighbour_in_the_target_decides_over_distant_callers():
    near_inline = _distant_subject(0, "\n\ndef _label(v):\n    return '{:.2f}'.format(v)\n")
    near_reuse = _distant_subject(3, "\n\ndef _label(v):\n    return fmt_money(v)\n")
    provider = _provider([near_inline], follow_rate=0.8)
    assert _probability(provider, render_input(near_inline, "clean", "layered").text) == pytest.approx(0.8)  # fmt: skip
    assert _probability(provider, render_input(near_reuse, "clean", "layered").text) == pytest.approx(0.2)  # fmt: skip

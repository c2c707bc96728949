"""Prompt rendering: the v1 profile, and blindness over all 24 v1 prompts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest

from assay.core.records import Family
from assay.fixtures.model import Subject
from assay.fixtures.v1 import TARGET, V1_ARMS, load_v1
from assay.science.render import PROMPT_PROFILES, render_input

SUBJECTS = load_v1(Path(__file__).parents[2] / "fixtures" / "v1").subjects
CELLS = [(subject, arm) for subject in SUBJECTS for arm in V1_ARMS]
CELL_IDS = [f"{subject.id}/{arm}" for subject, arm in CELLS]

ARM_NAMES = ("clean", "inconsistent")
WORDS_NEVER_SHOWN = ("helper", "reuse", "duplicat", "existing abstraction", "hint")


def json_forms(value: object) -> set[str]:
    """Every way a hidden value could be spelled in a prompt as JSON (or raw, for text)."""
    forms = {json.dumps(value), json.dumps(value, ensure_ascii=False)}
    if isinstance(value, str):
        forms.add(value)
    return forms


def hidden_strings(subject: Subject) -> dict[str, str]:
    """Text that must never reach a prompt, keyed by what it is."""
    task = subject.task
    hidden = {f"task id {task.id}": task.id, "subject digest": subject.digest}
    for index, vector in enumerate(task.vectors):
        for form in json_forms(vector.input):
            hidden[f"vector {index} input as {form!r}"] = form
        for form in json_forms(vector.expected):
            hidden[f"vector {index} expected as {form!r}"] = form
    hidden["reused reference"] = task.references.reused.strip()
    hidden["duplicated reference"] = task.references.duplicated.strip()
    hidden["primitive list"] = json.dumps(list(task.primitives))
    for arm in subject.arms:
        hidden[f"arm digest {arm.name}"] = subject.arm_digest(arm.name)
    return hidden


@pytest.mark.parametrize(("subject", "arm"), CELLS, ids=CELL_IDS)
def test_prompt_hides_every_hidden_field(subject: Subject, arm: str) -> None:
    text = render_input(subject, arm, "v1").text
    leaked = [what for what, hidden in hidden_strings(subject).items() if hidden in text]
    lowered = text.lower()
    leaked += [f"family {f}" for f in get_args(Family) if f in lowered]
    leaked += [f"arm name {name}" for name in ARM_NAMES if name in lowered]
    leaked += [f"word {word}" for word in WORDS_NEVER_SHOWN if word in lowered]
    leaked += [f"task id {other.id}" for other in SUBJECTS if other.id in text]
    assert leaked == []


@pytest.mark.parametrize(("subject", "arm"), CELLS, ids=CELL_IDS)
def test_prompt_shows_instruction_and_the_arm_module(subject: Subject, arm: str) -> None:
    text = render_input(subject, arm, "v1").text
    assert subject.task.instruction.strip() in text
    assert subject.arm(arm).file(TARGET).rstrip() in text
    other = next(name for name in V1_ARMS if name != arm)
    assert subject.arm(other).file(TARGET).rstrip() not in text


def test_v1_profile_asks_for_no_docstring_and_one_return() -> None:
    text = render_input(SUBJECTS[0], "clean", "v1").text
    assert "Do not write a docstring." in text
    assert "Use exactly one return statement." in text
    assert "`implement`" in text


def test_layered_profile_drops_the_single_return_rule() -> None:
    text = render_input(SUBJECTS[0], "clean", PROMPT_PROFILES["layered"]).text
    assert "Do not write a docstring." in text
    assert "return statement" not in text


def test_the_blindness_check_can_fail() -> None:
    """A prompt that quotes a vector is caught by the same comparison the test above makes."""
    subject = SUBJECTS[0]
    leaky = subject.task.model_copy(
        update={
            "instruction": f"{subject.task.instruction} e.g. {json.dumps(subject.task.vectors[0].expected)}"
        }
    )
    text = render_input(subject.model_copy(update={"task": leaky}), "clean", "v1").text
    assert any(hidden in text for hidden in hidden_strings(subject).values())


def test_rendering_is_deterministic_and_arms_differ() -> None:
    for subject in SUBJECTS:
        prompts = [render_input(subject, arm, "v1") for arm in V1_ARMS]
        assert [p.digest for p in prompts] == [render_input(subject, arm).digest for arm in V1_ARMS]
        assert prompts[0].digest != prompts[1].digest


def test_arm_may_be_given_as_a_record() -> None:
    subject = SUBJECTS[0]
    assert render_input(subject, subject.arm("inconsistent")) == render_input(
        subject, "inconsistent"
    )

"""Chain steps: earlier outputs join the target file as implement_step_<k>, as a developer would."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from assay.fixtures.chain import CHAIN_STEPS, append_step, chain_step_files
from assay.fixtures.model import Scenario
from assay.science.render import PROMPT_PROFILES, render_files

CASES = yaml.safe_load(
    (Path(__file__).parent / "cases" / "chain_steps.yaml").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_append_step(case: dict) -> None:
    target = case["target"]
    for step, output in enumerate(case["outputs"], start=1):
        target = append_step(target, output, step)
    assert target == case["expected"]


def test_step_files_change_only_the_target(scenarios: dict[str, Scenario]) -> None:
    chain = scenarios["chain"]
    for subject in chain.subjects:
        reused = subject.task.references.reused
        for arm in subject.arms:
            original = arm.as_mapping()
            assert chain_step_files(subject, arm.name, []) == original
            outputs = [reused] * (CHAIN_STEPS - 1)
            files = chain_step_files(subject, arm.name, outputs)
            assert {p: t for p, t in files.items() if p != subject.target} == {
                p: t for p, t in original.items() if p != subject.target
            }
            tree = ast.parse(files[subject.target])
            defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
            steps = [f"implement_step_{k}" for k in range(1, CHAIN_STEPS)]
            assert defined[-len(steps) :] == steps
            assert "implement" not in defined
            # every chain arm already imports the helper, so the reused output adds no import
            # and the arm's target stays an exact prefix
            assert files[subject.target].startswith(original[subject.target])


def test_a_chain_has_at_most_five_steps(scenarios: dict[str, Scenario]) -> None:
    subject = scenarios["chain"].subjects[0]
    with pytest.raises(ValueError, match="5 steps"):
        chain_step_files(subject, "tail-03", ["def implement(x):\n    return x\n"] * CHAIN_STEPS)


def test_later_steps_see_earlier_code_in_the_prompt(scenarios: dict[str, Scenario]) -> None:

    subject = scenarios["chain"].subjects[0]
    files = chain_step_files(subject, "tail-07", [subject.task.references.duplicated])
    prompt = render_files(
        subject.task.instruction, files, subject.target, PROMPT_PROFILES["layered"]
    ).text
    assert "def implement_step_1(" in prompt
    assert prompt.index("def implement_step_1(") > prompt.index(f"File `{subject.target}`")


@pytest.mark.parametrize(
    "answer",
    [
        "def implement(x):\n    return " + "-" * 100_000 + "x\n",
        "def implement(x):\n    return " + "x + " * 100_000 + "x\n",
        "def implement(x):\n    return '\0'\n",
    ],
    ids=["beyond-the-parser-depth", "beyond-the-tree-depth", "null-byte"],
)
def test_an_answer_the_parser_cannot_take_is_appended_verbatim(answer: str) -> None:
    """Merging a step and finding its own-step calls never raise: an answer the parser gives up
    on is appended with only its ``def`` line renamed, and calls no earlier step."""
    from assay.fixtures.chain import earlier_steps_called

    merged = append_step("X = 1\n", answer, 1)
    assert "def implement_step_1(x):" in merged
    assert earlier_steps_called(answer, 2) == ()

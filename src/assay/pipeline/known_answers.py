"""Known answers, before any plan: what the structural evaluator and the chain steps need.

The sandbox self-test proves correctness can be judged. This proves the rest of what a run
relies on, with no container:

- **structure**: every subject's reused reference scores ``reused`` and its duplicated
  reference ``duplicated`` under the preregistered evaluator version;
- **chain steps** (scenarios with more than one step): for every subject, arm and reference,
  steps 2…N are rendered exactly as the execute stage renders them (:class:`ChainRenderer`
  over a fenced answer), every rendered step shows each earlier step's function, and the
  merged target file still parses.

A chain arm skips correctness, so this is the whole self-test a chain scenario needs.
"""

from __future__ import annotations

import ast

from assay.core.records import Frozen
from assay.evidence.documents import KnownAnswerFailure, KnownAnswersReport, Reference
from assay.fixtures.chain import chain_step_files, step_name
from assay.fixtures.model import Scenario
from assay.pipeline.render import prompt_rows
from assay.science.chain_prompts import ChainRenderer
from assay.structure import score

REFERENCES: tuple[Reference, ...] = ("reused", "duplicated")


def fenced(source: str) -> str:
    """A reference as a chat model would answer with it."""
    return f"Here is the function.\n\n```python\n{source.strip()}\n```\n"


class _Cell(Frozen):
    subject: str
    arm: str


def _structure_failures(scenario: Scenario, version: int) -> list[KnownAnswerFailure]:
    failures = []
    for subject in scenario.subjects:
        task = subject.task
        for reference in REFERENCES:
            result = score(
                getattr(task.references, reference),
                helper=task.helper,
                helper_module=task.helper_module,
                primitives=task.primitives,
                version=version,
            )
            if result.verdict != reference:
                failures.append(
                    KnownAnswerFailure(
                        check="structure",
                        subject=subject.id,
                        reference=reference,
                        problem=f"scored {result.verdict} ({result.reason})",
                    )
                )
    return failures


def _step_problem(
    renderer: ChainRenderer, scenario: Scenario, cell: _Cell, answer: str, step: int
) -> str | None:
    prompt = renderer(cell, step, [fenced(answer)] * (step - 1))
    if prompt is None:
        return "the execute stage could not render this step"
    missing = [step_name(k) for k in range(1, step) if f"def {step_name(k)}(" not in prompt]
    if missing:
        return f"the rendered step does not show {', '.join(missing)}"
    subject = scenario.subject(cell.subject)
    target = chain_step_files(subject, cell.arm, [answer] * (step - 1))[subject.target]
    try:
        ast.parse(target)
    except SyntaxError as exc:
        return f"the merged target does not parse: {exc.msg} (line {exc.lineno})"
    return None


def _chain_failures(scenario: Scenario) -> tuple[int, list[KnownAnswerFailure]]:
    renderer = ChainRenderer({(r.subject, r.arm): r for r in prompt_rows(scenario)})
    checks, failures = 0, []
    for subject in scenario.subjects:
        for arm in scenario.arms:
            cell = _Cell(subject=subject.id, arm=arm)
            for reference in REFERENCES:
                answer = getattr(subject.task.references, reference)
                for step in range(2, scenario.steps + 1):
                    checks += 1
                    problem = _step_problem(renderer, scenario, cell, answer, step)
                    if problem:
                        failures.append(
                            KnownAnswerFailure(check="chain-step", subject=subject.id,
                                               reference=reference, arm=arm, step=step,
                                               problem=problem)
                        )  # fmt: skip
    return checks, failures


def check_known_answers(scenario: Scenario, structure_version: int) -> KnownAnswersReport:
    failures = _structure_failures(scenario, structure_version)
    step_checks = 0
    if scenario.steps > 1:
        step_checks, step_failures = _chain_failures(scenario)
        failures += step_failures
    return KnownAnswersReport(
        structure_version=structure_version,
        structure_checks=len(REFERENCES) * len(scenario.subjects),
        step_checks=step_checks,
        failures=tuple(failures),
    )

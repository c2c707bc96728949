"""``render`` stage: every (subject, arm) of every realised scenario → its blind prompt.

Beside each prompt it keeps what the prompt already shows — the instruction, the target path
and the arm's files — so the execute stage can render a chain's later steps (the arm's files
with the model's earlier outputs appended) without ever reading a fixture or a hidden field.
"""

from __future__ import annotations

import json

from assay import evidence
from assay.evidence import PromptRow
from assay.fixtures.model import Scenario
from assay.science.render import render_input


def prompt_rows(scenario: Scenario) -> list[PromptRow]:
    rows = []
    for subject in scenario.subjects:
        for arm in subject.arms:
            prompt = render_input(subject, arm, scenario.prompt_profile)
            rows.append(
                PromptRow(
                    scenario=scenario.name,
                    subject=subject.id,
                    arm=arm.name,
                    prompt_profile=scenario.prompt_profile,
                    prompt_digest=prompt.digest,
                    prompt=prompt.text,
                    instruction=subject.task.instruction,
                    target=subject.target,
                    files_json=json.dumps(arm.as_mapping(), sort_keys=True),
                )
            )
    return rows


def run() -> None:
    for name in evidence.realised_scenarios():
        evidence.write_table(evidence.PROMPTS, name, prompt_rows(evidence.read_scenario(name)))

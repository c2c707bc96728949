"""``render`` stage: every (subject, arm) → its blind prompt.

Beside each prompt it keeps what the prompt already shows — the instruction, the target path
and the arm's files — so the execute stage can render a chain's later steps (the arm's files
with the model's earlier outputs appended) without ever reading a fixture or a hidden field.
"""

from __future__ import annotations

import json

from assay.fixtures.model import Scenario
from assay.pipeline import paths
from assay.pipeline.subjects import read_scenario
from assay.records import Frozen
from assay.render import render_input
from assay.tables import read_records, write_records


class PromptRow(Frozen):
    scenario: str
    subject: str
    arm: str
    prompt_profile: str
    prompt_digest: str
    prompt: str
    instruction: str
    target: str
    files_json: str
    """The arm's files as canonical JSON ``{path: text}``: exactly what the prompt shows."""


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


def read_prompt_rows(scenario: str) -> dict[tuple[str, str], PromptRow]:
    rows = read_records(paths.prompts_table(scenario), PromptRow)
    return {(r.subject, r.arm): r for r in rows}


def read_prompts(scenario: str) -> dict[tuple[str, str], str]:
    return {key: row.prompt for key, row in read_prompt_rows(scenario).items()}


def run(name: str) -> None:
    write_records(paths.prompts_table(name), PromptRow, prompt_rows(read_scenario(name)))

"""``render`` stage: every (subject, arm) → its blind prompt."""

from __future__ import annotations

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
    prompt_digest: str
    prompt: str


def prompt_rows(scenario: Scenario) -> list[PromptRow]:
    rows = []
    for subject in scenario.subjects:
        for arm in subject.arms:
            prompt = render_input(subject, arm, scenario.prompt_profile)
            rows.append(PromptRow(scenario=scenario.name, subject=subject.id, arm=arm.name,
                                  prompt_digest=prompt.digest, prompt=prompt.text))  # fmt: skip
    return rows


def read_prompts(scenario: str) -> dict[tuple[str, str], str]:
    return {
        (r.subject, r.arm): r.prompt for r in read_records(paths.prompts_table(scenario), PromptRow)
    }


def run(name: str) -> None:
    write_records(paths.prompts_table(name), PromptRow, prompt_rows(read_scenario(name)))

"""``execute`` stage: the only stage that talks to a provider.

It reads the plan, the authorization and the rendered prompts. Only the simulated stand-in
also reads the scenario (its answer book); real providers receive the prompt and nothing else.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from assay.execute import CallRecord, Executor
from assay.extract import extract_candidate
from assay.fixtures.chain import append_step
from assay.ledger import Ledger
from assay.params import Params
from assay.pipeline import paths
from assay.pipeline.authorize import read_authorization
from assay.pipeline.plan import read_plan
from assay.pipeline.render import PromptRow, read_prompt_rows
from assay.pipeline.subjects import read_scenario
from assay.plan import Plan, PlannedCell
from assay.providers.base import Provider
from assay.providers.replay import ReplayProvider
from assay.providers.simulated import SimulatedProvider, answer_book
from assay.render import PROMPT_PROFILES, render_files
from assay.tables import write_records


def provider_factory(plan: Plan) -> Callable[[], Provider]:
    profile = plan.model

    def make() -> Provider:
        if profile.provider == "simulated":
            return SimulatedProvider(profile, answer_book(read_scenario(plan.scenario).subjects))
        if profile.provider == "replay":
            if not profile.replay_ledger:
                raise ValueError(
                    "a replay profile needs replay_ledger (the earlier run's ledger folder)"
                )
            return ReplayProvider(Path(profile.replay_ledger))
        from assay.providers.factory import make_provider

        return make_provider(profile, env=os.environ)

    return make


class ChainRenderer:
    """Step ``k`` of a chain: the arm's files with the candidates of steps 1…k-1 appended to
    the target under their step names, so later steps see the model's own earlier code. Uses
    only what the render stage recorded as visible: instruction, target path, files."""

    def __init__(self, rows: Mapping[tuple[str, str], PromptRow]) -> None:
        self.rows = rows

    def __call__(self, cell: PlannedCell, step: int, texts: Sequence[str]) -> str | None:
        row = self.rows[(cell.subject, cell.arm)]
        files = json.loads(row.files_json)
        for earlier, text in enumerate(texts[: step - 1], start=1):
            candidate = extract_candidate(text)
            if candidate.source is None:
                return None
            files[row.target] = append_step(files[row.target], candidate.source, earlier)
        return render_files(
            row.instruction, files, row.target, PROMPT_PROFILES[row.prompt_profile]
        ).text


def awaiting(plan: Plan) -> list[CallRecord]:
    return [
        CallRecord(
            run=plan.run,
            cell_id=c.cell_id,
            subject=c.subject,
            arm=c.arm,
            repeat=c.repeat,
            step=step,
            status="not-run",
            reason="awaiting-authorization",
        )
        for c in plan.cells
        for step in range(1, c.steps + 1)
    ]


def run(
    run_id: str,
    params: Params,
    factory: Callable[[Plan], Callable[[], Provider]] = provider_factory,
) -> list[CallRecord]:
    plan = read_plan(run_id)
    authorization = read_authorization(run_id)
    if authorization.plan_hash != plan.hash:
        raise RuntimeError(
            f"run {run_id!r}: authorization was decided for another plan; run `dvc repro` again"
        )
    if authorization.state == "awaiting-authorization":
        records = awaiting(plan)
    else:
        ledger = Ledger.open(Path(params.ledger_root), run_id, plan.hash, paid=plan.budget.paid)
        rows = read_prompt_rows(plan.scenario)
        prompts = {key: row.prompt for key, row in rows.items()}
        executor = Executor(plan, ledger, prompts, factory(plan), next_prompt=ChainRenderer(rows))
        records = executor.run()
    write_records(paths.cells_table(run_id), CallRecord, records)
    return records

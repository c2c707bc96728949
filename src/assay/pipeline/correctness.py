"""``correctness`` stage: every candidate → one correctness row, run in the hardened sandbox.

A pure function of candidates, subjects and the pinned image; the structural verdict is never
read here (and the correctness verdict never reaches the structure stage).
"""

from __future__ import annotations

import os

from assay.params import Params
from assay.pipeline import paths
from assay.pipeline.extract import read_candidates
from assay.pipeline.plan import read_plan
from assay.pipeline.subjects import read_scenario
from assay.sandbox.cells import CorrectnessRow, correctness_rows
from assay.tables import write_records


def run(run_id: str, params: Params) -> list[CorrectnessRow]:
    plan = read_plan(run_id)
    image = plan.sandbox["image_id"]
    scenario = read_scenario(params.run(run_id).scenario)
    rows = correctness_rows(
        read_candidates(run_id),
        scenario,
        image,
        workers=2 * (os.cpu_count() or 1),
        description=f"correctness {run_id}",
    )
    write_records(paths.correctness_table(run_id), CorrectnessRow, rows)
    return rows

"""``correctness`` stage: every candidate → one correctness row, run in the hardened sandbox.

A pure function of candidates, subjects and the pinned image; the structural verdict is never
read here (and the correctness verdict never reaches the structure stage). Each image/policy
version's rows are also kept under ``data/correctness-versions/RUN/`` (a persisted output), so
a new image or sandbox policy adds results beside the earlier ones instead of overwriting them.
"""

from __future__ import annotations

import os

from assay.params import Params
from assay.pipeline import paths
from assay.pipeline.extract import read_candidates
from assay.pipeline.plan import read_plan
from assay.pipeline.subjects import read_scenario
from assay.sandbox.cells import CorrectnessRow, correctness_rows
from assay.sandbox.policy import policy_version
from assay.tables import write_records


def run(run_id: str, params: Params) -> list[CorrectnessRow]:
    plan = read_plan(run_id)
    image = plan.sandbox["image_id"]
    scenario = read_scenario(params.run(run_id).scenario)
    rows = correctness_rows(
        read_candidates(run_id), scenario, image, workers=2 * (os.cpu_count() or 1)
    )
    write_records(paths.correctness_table(run_id), CorrectnessRow, rows)
    policy = policy_version()
    kept = [CorrectnessVersionRow(**row.model_dump(), policy=policy) for row in rows]
    write_records(
        paths.correctness_version_table(run_id, image, policy), CorrectnessVersionRow, kept
    )
    return rows


class CorrectnessVersionRow(CorrectnessRow):
    """A correctness row with the sandbox policy version it ran under (the image is in it)."""

    policy: str

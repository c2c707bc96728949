"""``measure`` stage: every gate-accepted output as a change to its arm's repository, measured
before and after by pinned, established tools (``assay.metrics``), in long form."""

from __future__ import annotations

import os

from assay.metrics import measure_run
from assay.params import Params
from assay.pipeline import paths


def run(run_id: str, params: Params) -> None:
    scenario = params.run(run_id).scenario
    measure_run(
        paths.candidates_table(run_id),
        paths.scenario_file(scenario),
        paths.metrics_table(run_id),
        workers=os.cpu_count() or 1,
    )

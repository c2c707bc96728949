"""``export`` stage: the run's ``abstraction/`` and ``correctness/`` bundles, each verified
(``assay.export.build.export_run`` verifies them before they land).

DVC deletes ``data/export/<run>`` before the stage runs, so the destination is always new.
The ledger is read from ``ledger_root`` (outside DVC's outputs); the stage depends on the
execute stage's table, which changes whenever the ledger does.
"""

from __future__ import annotations

from pathlib import Path

from assay import evidence
from assay.export.build import Exported, export_run
from assay.pipeline.stage_params import Declaration, StageParams

PARAMS = Declaration(keys=("ledger_root",))


def read_params(params: StageParams) -> Path:
    """Where the ledgers are."""
    return Path(params.typed("ledger_root", str))


def run(run_id: str, params: StageParams) -> Exported:
    ledger_root = read_params(params)
    return export_run(run_id, evidence.DATA, ledger_root, evidence.export_dir(run_id))

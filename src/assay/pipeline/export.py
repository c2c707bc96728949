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
from assay.params import Params


def run(run_id: str, params: Params) -> Exported:
    params.run(run_id)
    destination = evidence.export_dir(run_id)
    return export_run(run_id, evidence.DATA, Path(params.ledger_root), destination)

"""A paid run's inputs, kept with its ledger from its first request on.

A paid run that began sending is bound to its plan for good: it is never re-planned, resumed or
authorized again. Its evidence needs what it was sent from: the plan, the realised subjects and
the rendered prompts. Those live in DVC's outputs, which the next edit of a fixture or of
params.yaml replaces, so before a paid run's first request :func:`seal` copies them into its
ledger folder (``<ledger_root>/<run>/<plan hash>/sealed/``), outside DVC's outputs like the
ledger itself.

When an edit later gives the run another plan, the plan stage keeps the sealed plan as the
run's plan, with the sealed subjects and prompts beside it (``data/plan/<run>/inputs/``): every
later stage of the run reads those, so its evidence and report stay what they were. The edit's
plan goes beside them (``data/plan/<run>/next.json``) and waits for a run id and an
authorization of its own (``assay run add NEW --like RUN``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from assay.core.records import Frozen
from assay.evidence import paths
from assay.paid.ledger import begun_plans
from assay.paid.plan import Plan

SEALED = "sealed"
PLAN = "plan"


class Sealed(Frozen):
    """A paid run's plan and inputs as they were at its first request."""

    run: str
    plan_hash: str
    folder: str

    @property
    def plan_dir(self) -> Path:
        return Path(self.folder) / PLAN

    def inputs(self, stage: str) -> Path:
        return Path(self.folder) / stage


def seal(ledger_dir: Path, plan: Plan, data: Path = paths.DATA) -> None:
    """Copy the run's plan and its scenario's subjects and prompts into ``ledger_dir`` (once:
    an existing seal is kept; a torn one, from a crash while copying, is made again)."""
    target = ledger_dir / SEALED
    if target.is_dir():
        return
    staging = ledger_dir / f".{SEALED}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(paths.plan_file(plan.run, data).parent, staging / PLAN)
    for stage in paths.SCENARIO_STAGES:
        shutil.copytree(paths.scenario_dir(stage, plan.scenario, data), staging / stage)
    os.replace(staging, target)


def sealed_run(ledger_root: Path, run: str) -> Sealed | None:
    """The plan under which ``run`` began sending here, with its sealed inputs; ``None`` when it
    has not begun, or began before seals were kept."""
    for plan_hash in begun_plans(ledger_root, run):
        folder = ledger_root / run / plan_hash / SEALED
        if folder.is_dir():
            return Sealed(run=run, plan_hash=plan_hash, folder=str(folder))
    return None

"""``inspect_logs`` stage: every run declared in params.yaml as an Inspect eval log
(:mod:`assay.inspect.logs`) in ``data/inspect_logs/``, one file per run.

One stage over all runs, not one per run: its cost is mostly importing ``inspect_ai`` and
opening the report's views, paid once here instead of once per run, and DVC's own cost per
stage (a lock entry rewritten after every stage) would be paid fifteen times. Writing every log
again when one run changes takes less than either (docs/benchmarks.md).

DVC deletes the folder before the stage runs, so a run removed from params.yaml leaves no log.
"""

from __future__ import annotations

from pathlib import Path

from assay import evidence
from assay.config.params import RunSpec
from assay.core.progress import progress
from assay.core.records import Frozen
from assay.inspect.log_evidence import run_evidence
from assay.inspect.logs import write_log
from assay.pipeline.stage_params import Declaration, StageParams
from assay.report.database import connect

PARAMS = Declaration(keys=("ledger_root", "runs"))


class InspectLogParams(Frozen):
    ledger_root: str
    runs: dict[str, RunSpec]


def read_params(params: StageParams) -> InspectLogParams:
    return InspectLogParams(
        ledger_root=params.typed("ledger_root", str),
        runs=params.typed("runs", dict[str, RunSpec]),
    )


def write_logs(data: Path, ledger_root: Path, runs: tuple[str, ...], out: Path) -> list[Path]:
    """The log of every run in ``runs`` from the evidence under ``data``, into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    con = connect(data, runs)
    written = []
    with progress(len(runs), "inspect_logs", unit="run") as bar:
        for run in runs:
            written.append(write_log(run_evidence(con, run, data, ledger_root), out))
            bar.update()
    return written


def run(params: StageParams) -> list[Path]:
    declared = read_params(params)
    return write_logs(
        evidence.DATA,
        Path(declared.ledger_root),
        tuple(declared.runs),
        evidence.inspect_logs_dir(),
    )

"""Whether the next ``dvc repro`` must run the send stage: a free run left with calls unanswered.

DVC re-runs a stage when one of its dependencies changed. What decides the send stage's work
lives outside DVC, in the ledgers, so this file stands for it: ``<ledger_root>/resend.json``, a
dependency of the send stage, maps each free run that stopped short (a halt, a server that
died, a check that refused it) to a fresh token. Each run's execute stage, which runs after
the send stage, writes its own entry: a new token while the run has calls unanswered, none once
it has not. So after a halt the next ``dvc repro`` sees the file changed and runs the send stage,
which sends the unanswered calls again; a ``dvc repro`` with nothing left to send runs nothing
at all (a stage that ran every time would cost every no-op ``dvc repro`` seconds). Paid runs
never appear here: a paid run is never resumed; nor do runs whose answers are read from an
Inspect log, which gives the same answers (or the same refusal) until it changes, and a changed
log is a new plan. The params stage creates the file (``{}``)
before anything reads it (``assay.evidence.paths.resend_file``).
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

from assay.evidence import read_plan
from assay.evidence.paths import resend_file
from assay.paid.ledger import Ledger
from assay.pipeline.admission import pending


def record(ledger_root: str | Path, run_id: str) -> None:
    """Run ``run_id``'s entry after its execute stage: a fresh token while it is a free run with
    calls unanswered, none otherwise. The file is rewritten only when an entry changes."""
    plan = read_plan(run_id)
    left = (
        not plan.budget.paid
        and not plan.model.answers_fixed  # read again, an Inspect log answers the same
        and pending(plan, Ledger.at(Path(ledger_root), run_id, plan.hash).state())
    )
    path = resend_file(ledger_root)
    entries: dict[str, str] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if not left and run_id not in entries:
        return
    if left:
        entries[run_id] = uuid.uuid4().hex
    else:
        del entries[run_id]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(entries, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)

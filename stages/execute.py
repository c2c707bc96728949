"""DVC stage `execute`: one run's cells from the send stage's receipt and the responses in the
run's ledger. It sends only a run the send stage left to it, because the `dvc repro` that ran
the send stage asked for other runs only (see assay.pipeline.send.execute_stage). A free run that
stopped short still gets its cells (its report says why), so the other runs go on."""

import sys

from assay.config.params import load_params
from assay.core.errors import boundary
from assay.pipeline import resend, send

if __name__ == "__main__":
    run_id = sys.argv[1]
    with boundary():
        params = load_params()
        entry = send.execute_stage(run_id, params, reload=load_params)
        for line in send.describe(entry):
            print(line)
        if entry.failure is None:  # a free run left with calls unanswered: the next repro sends
            resend.record(params.ledger_root, run_id)
    if entry.warning is not None:
        print(f"assay: {entry.warning}", file=sys.stderr)
    if entry.failure is not None:
        sys.exit(1)

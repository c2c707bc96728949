"""DVC stage `send`: the stage that sends provider requests, every run the `dvc repro` asks for
at once (one thread per run, each run's calls one at a time in plan order; see
assay.pipeline.send and, for which runs, assay.pipeline.requested). A run that stopped short
(a halt, a refusal) gets one `assay:` line; only a paid run's refusal fails the stage, so a free
run never holds up the others."""

import sys

from assay.config.params import load_params
from assay.core.errors import boundary
from assay.pipeline import send
from assay.pipeline.requested import requested_runs

if __name__ == "__main__":
    with boundary():
        params = load_params()
        sent = send.run(params, reload=load_params, requested=requested_runs(list(params.runs)))
        for entry in sent:
            for line in send.describe(entry):
                print(line)
    for entry in sent:
        if entry.warning is not None:
            print(f"assay: {entry.warning}", file=sys.stderr)
    if any(entry.failure is not None for entry in sent):
        sys.exit(1)  # a paid run refused: a person answers it (the others' receipts are written)

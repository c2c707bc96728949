"""DVC stage `send`: the stage that sends provider requests, every run the `dvc repro` asks for
at once (one thread per run, each run's calls one at a time in plan order; see
assay.pipeline.send and, for which runs, assay.pipeline.requested)."""

import sys

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import send
from assay.pipeline.requested import requested_runs

if __name__ == "__main__":
    with boundary():
        params = load_params()
        sent = send.run(params, reload=load_params, requested=requested_runs(list(params.runs)))
        for entry in sent:
            for line in send.describe(entry):
                print(line)
    failures = [entry.failure for entry in sent if entry.failure is not None]
    for failure in failures:
        print(f"assay: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)

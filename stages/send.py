"""DVC stage `send`: the only stage that sends provider requests, every run at once (one
thread per run, each run's calls one at a time in plan order; see assay.pipeline.send)."""

import sys
from collections import Counter

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import send

if __name__ == "__main__":
    with boundary():
        sent = send.run(load_params(), reload=load_params)
    for entry in sent:
        executed = entry.executed
        if executed is not None and executed.preflight is not None:
            print(f"{entry.run}: pre-flight checks (free calls)\n{executed.preflight.render()}")
        if executed is not None and not executed.refused:
            counts = Counter(r.status for r in executed.records)
            print(f"{entry.run}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    failures = [entry.failure for entry in sent if entry.failure is not None]
    for failure in failures:
        print(f"assay: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)

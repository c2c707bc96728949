"""DVC stage `execute`: the only stage that sends provider requests."""

import sys
from collections import Counter

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import execute

if __name__ == "__main__":
    run_id = sys.argv[1]
    with boundary():
        executed = execute.run(run_id, load_params())
    if executed.preflight is not None:
        print(f"{run_id}: pre-flight checks (free calls)\n{executed.preflight.render()}")
    if executed.refused:
        sys.exit(f"assay: {executed.refusal()}")
    counts = Counter(r.status for r in executed.records)
    print(f"{run_id}: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    if executed.retry_due:
        sys.exit(f"assay: {executed.retry_message()}")

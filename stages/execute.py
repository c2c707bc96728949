"""DVC stage `execute`: one run's cells from the send stage's receipt and the responses in the
run's ledger. It sends nothing (the send stage does; see assay.pipeline.execute.collect)."""

import sys
from collections import Counter

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import execute

if __name__ == "__main__":
    run_id = sys.argv[1]
    with boundary():
        records = execute.collect(run_id, load_params())
    counts = Counter(r.status for r in records)
    print(f"{run_id}: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))

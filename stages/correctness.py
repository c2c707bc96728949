"""DVC stage `correctness`: candidates → correctness rows, in the hardened sandbox."""

import sys
from collections import Counter

from assay.core.errors import boundary
from assay.pipeline import correctness
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        rows = correctness.run(sys.argv[1], StageParams(correctness.PARAMS, sys.argv[1]))
        counts = Counter(row.status or f"missing ({row.reason})" for row in rows)
        print(
            f"{sys.argv[1]}: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        )

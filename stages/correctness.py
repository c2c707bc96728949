"""DVC stage `correctness`: candidates → correctness rows, in the hardened sandbox."""

import sys
from collections import Counter

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import correctness

if __name__ == "__main__":
    with boundary():
        rows = correctness.run(sys.argv[1], load_params())
        counts = Counter(row.status or f"missing ({row.reason})" for row in rows)
        print(
            f"{sys.argv[1]}: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        )

"""DVC stage `execute`: the only stage that sends provider requests."""

import sys
from collections import Counter

from assay.ledger import LedgerBindingError
from assay.params import load_params
from assay.pipeline import execute

if __name__ == "__main__":
    try:
        records = execute.run(sys.argv[1], load_params())
    except LedgerBindingError as exc:
        sys.exit(f"assay: {exc}")
    counts = Counter(r.status for r in records)
    print(f"{sys.argv[1]}: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))

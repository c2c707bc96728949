"""DVC stage `authorize`: params.yaml's authorization against the plan hash."""

import sys

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import authorize

if __name__ == "__main__":
    with boundary():
        decision = authorize.run(sys.argv[1], load_params())
        print(f"{decision.run}: {decision.state} ({decision.reason}); plan {decision.plan_hash}")

"""DVC stage `authorize`: params.yaml's authorization against the plan hash."""

import sys

from assay.authorize import AuthorizationError
from assay.params import load_params
from assay.pipeline import authorize

if __name__ == "__main__":
    try:
        decision = authorize.run(sys.argv[1], load_params())
    except AuthorizationError as exc:
        sys.exit(f"assay: {exc}")
    print(f"{decision.run}: {decision.state} ({decision.reason}); plan {decision.plan_hash}")

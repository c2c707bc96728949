"""DVC stage `authorize`: params.yaml's authorization against the plan hash."""

import sys

from assay.core.errors import boundary
from assay.pipeline import authorize
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        decision = authorize.run(sys.argv[1], StageParams(authorize.PARAMS, sys.argv[1]))
        print(f"{decision.run}: {decision.state} ({decision.reason}); plan {decision.plan_hash}")

"""DVC stage `plan`: the run's plan.json and plan hash. Makes no provider call."""

import sys

from assay.core.errors import boundary
from assay.paid.plan import summary
from assay.pipeline import plan
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        planned = plan.run(sys.argv[1], StageParams(plan.PARAMS, sys.argv[1]))
        print(summary(planned.plan))
        if planned.replanned:
            print(planned.replanned)

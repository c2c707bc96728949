"""DVC stage `plan`: the run's plan.json and plan hash. Makes no provider call."""

import sys

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import plan
from assay.plan import summary

if __name__ == "__main__":
    with boundary():
        planned = plan.run(sys.argv[1], load_params())
        print(summary(planned.plan))
        if planned.replanned:
            print(planned.replanned)

"""DVC stage `measure`: code metrics of every output, before and after, keyed by tool."""

import sys

from assay.core.errors import boundary
from assay.pipeline import measure
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        measure.run(sys.argv[1], StageParams(measure.PARAMS, sys.argv[1]))

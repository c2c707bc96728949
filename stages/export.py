"""DVC stage `export`: a run's abstraction/ and correctness/ bundles → data/export/<run>/."""

import sys

from assay.core.errors import boundary
from assay.pipeline import export
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        export.run(sys.argv[1], StageParams(export.PARAMS, sys.argv[1]))

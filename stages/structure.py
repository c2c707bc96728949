"""DVC stage `structure`: candidates → structural verdicts."""

import sys

from assay.core.errors import boundary
from assay.pipeline import structure
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        structure.run(sys.argv[1], StageParams(structure.PARAMS, sys.argv[1]))

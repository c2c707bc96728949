"""DVC stage `extract`: responses → candidate sources."""

import sys

from assay.core.errors import boundary
from assay.pipeline import extract
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        extract.run(sys.argv[1], StageParams(extract.PARAMS, sys.argv[1]))

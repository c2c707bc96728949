"""DVC stage `measure`: code metrics of every output, before and after, keyed by tool."""

import sys

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import measure

if __name__ == "__main__":
    with boundary():
        measure.run(sys.argv[1], load_params())

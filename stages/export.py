"""DVC stage `export`: a run's abstraction/ and correctness/ bundles → data/export/<run>/."""

import sys

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import export

if __name__ == "__main__":
    with boundary():
        export.run(sys.argv[1], load_params())

"""DVC stage `export`: a run's abstraction/ and correctness/ bundles → data/export/<run>/."""

import sys

from assay.params import load_params
from assay.pipeline import export

if __name__ == "__main__":
    export.run(sys.argv[1], load_params())

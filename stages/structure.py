"""DVC stage `structure`: candidates → structural verdicts."""

import sys

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import structure

if __name__ == "__main__":
    with boundary():
        structure.run(sys.argv[1], load_params())

"""DVC stage `extract`: responses → candidate sources."""

import sys

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import extract

if __name__ == "__main__":
    with boundary():
        extract.run(sys.argv[1], load_params())

"""DVC stage `render`: data/subjects/<scenario> → data/render/<scenario>/prompts.parquet."""

import sys

from assay.errors import boundary
from assay.pipeline import render

if __name__ == "__main__":
    with boundary():
        render.run(sys.argv[1])

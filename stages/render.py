"""DVC stage `render`: data/subjects/<scenario> → data/render/<scenario>/prompts.parquet."""

import sys

from assay.pipeline import render

if __name__ == "__main__":
    render.run(sys.argv[1])

"""DVC stage `render`: data/subjects/<scenario> → data/render/<scenario>/prompts.parquet, every
realised scenario."""

from assay.core.errors import boundary
from assay.pipeline import render

if __name__ == "__main__":
    with boundary():
        render.run()

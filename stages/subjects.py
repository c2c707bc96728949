"""DVC stage `subjects`: fixtures/<scenario> → data/subjects/<scenario>/, every scenario."""

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import subjects

if __name__ == "__main__":
    with boundary():
        subjects.run(load_params())

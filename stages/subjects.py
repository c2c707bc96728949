"""DVC stage `subjects`: fixtures/<scenario> → data/subjects/<scenario>/, every scenario."""

from assay.core.errors import boundary
from assay.pipeline import subjects
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        subjects.run(StageParams(subjects.PARAMS))

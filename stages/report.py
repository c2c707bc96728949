"""DVC stage `report`: every run's evidence → data/report/."""

from assay.core.errors import boundary
from assay.pipeline import report
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        report.run(StageParams(report.PARAMS))

"""DVC stage `inspect_logs`: every run as an Inspect eval log → data/inspect_logs/."""

from assay.core.errors import boundary
from assay.pipeline import inspect_logs
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        inspect_logs.run(StageParams(inspect_logs.PARAMS))

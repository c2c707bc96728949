"""DVC stage `report`: every run's evidence → data/report/."""

from assay.config.params import load_params
from assay.core.errors import boundary
from assay.pipeline import report

if __name__ == "__main__":
    with boundary():
        report.run(load_params())

"""DVC stage `selftest`: the sandbox must pass the references and fail a wrong implementation."""

import sys

from assay.errors import boundary
from assay.params import load_params
from assay.pipeline import selftest

if __name__ == "__main__":
    with boundary():
        report = selftest.run(sys.argv[1], load_params().compute)
        print(
            f"{sys.argv[1]}: sandbox self-test passed ({report.checks} checks, image {report.image})"
        )

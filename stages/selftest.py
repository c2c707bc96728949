"""DVC stage `selftest`: the evaluators must judge known answers as declared before any plan."""

import sys

from assay.core.errors import boundary
from assay.pipeline import selftest
from assay.pipeline.stage_params import StageParams

if __name__ == "__main__":
    with boundary():
        report = selftest.run(sys.argv[1], StageParams(selftest.PARAMS, sys.argv[1]))
        sandbox, known = report.sandbox, report.known_answers
        parts = [
            f"sandbox {sandbox.checks} checks on image {sandbox.image}"
            if sandbox.needed
            else "no arm runs correctness, so no sandbox check",
            f"structure {known.structure_checks} checks",
        ]
        if known.step_checks:
            parts.append(f"chain steps {known.step_checks} checks")
        print(f"{sys.argv[1]}: self-test passed: " + "; ".join(parts))

"""DVC stage `selftest`: the evaluators must judge known answers as declared before any plan."""

import sys

from assay.params import load_params
from assay.pipeline import selftest

if __name__ == "__main__":
    try:
        report = selftest.run(sys.argv[1], load_params())
    except selftest.SelfTestFailed as exc:
        sys.exit(f"assay: {exc}")
    sandbox = report.sandbox
    print(
        f"{sys.argv[1]}: self-test passed: "
        + (
            f"sandbox {sandbox.checks} checks on image {sandbox.image}"
            if sandbox.needed
            else "no arm runs correctness, so no sandbox check"
        )  # fmt: skip
        + f"; structure {report.known_answers.structure_checks} checks"
        + (
            f"; chain steps {report.known_answers.step_checks} checks"
            if report.known_answers.step_checks
            else ""
        )  # fmt: skip
    )

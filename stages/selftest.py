"""DVC stage `selftest`: the sandbox must pass the references and fail a wrong implementation."""

import sys

from assay.pipeline import selftest

if __name__ == "__main__":
    try:
        report = selftest.run(sys.argv[1])
    except selftest.SelfTestFailed as exc:
        sys.exit(f"assay: {exc}")
    print(f"{sys.argv[1]}: sandbox self-test passed ({report.checks} checks, image {report.image})")

"""DVC stage `params`: validate all of params.yaml before any other stage runs.

Every other stage depends on this stage's output, so a bad params.yaml stops `dvc repro` here,
before DVC deletes any other stage's outputs. The output's bytes never change, so a valid edit
re-runs only the stages whose own parameters changed.
"""

import sys

from assay.evidence.paths import params_check_file
from assay.params import ParamsError, load_params

if __name__ == "__main__":
    try:
        load_params()
    except ParamsError as exc:
        sys.exit("\n".join(f"assay: {line}" for line in exc.lines))
    checked = params_check_file()
    checked.parent.mkdir(parents=True, exist_ok=True)
    checked.write_text("params.yaml is valid\n", encoding="utf-8")

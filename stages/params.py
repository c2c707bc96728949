"""DVC stage `params`: validate all of params.yaml before any other stage runs.

Every other stage depends on this stage's output, so a bad params.yaml stops `dvc repro` here,
before DVC deletes any other stage's outputs. The output's bytes never change, so a valid edit
re-runs only the stages whose own parameters changed.
"""

import sys

from assay.params import CHECKED_FILE, ParamsError, load_params

if __name__ == "__main__":
    try:
        load_params()
    except ParamsError as exc:
        sys.exit("\n".join(f"assay: {line}" for line in exc.lines))
    CHECKED_FILE.parent.mkdir(parents=True, exist_ok=True)
    CHECKED_FILE.write_text("params.yaml is valid\n", encoding="utf-8")

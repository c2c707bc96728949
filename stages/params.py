"""DVC stage `params`: validate all of params.yaml, then write each section as its own file.

Every other stage depends on this stage's outputs, so a bad params.yaml stops `dvc repro` here,
before DVC deletes any other stage's outputs; the outputs persist, so a failed check changes
nothing. See assay.pipeline.params.
"""

import sys

from assay.config.params import ParamsError
from assay.pipeline import params

if __name__ == "__main__":
    try:
        params.run()
    except ParamsError as exc:
        sys.exit("\n".join(f"assay: {line}" for line in exc.lines))

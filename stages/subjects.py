"""DVC stage `subjects`: fixtures/<scenario> → data/subjects/<scenario>/."""

import sys

from assay.fixtures import FixtureError
from assay.params import ParamsError, load_params
from assay.pipeline import subjects

if __name__ == "__main__":
    try:
        subjects.run(sys.argv[1], load_params())
    except FixtureError as exc:
        sys.exit(f"assay: malformed fixture: {exc}")
    except ParamsError as exc:
        sys.exit(f"assay: {exc}")

"""The evidence contract: everything the stages write under ``data/``, declared once.

``data/<stage>/<scenario or run>/<file>``, one folder per DVC stage (dvc.yaml declares the same
folders as outputs). This package is the only Python that knows the layout:

- :mod:`~assay.evidence.paths`: where each JSON artefact lives;
- :mod:`~assay.evidence.rows`: every row type of a Parquet table (one per table);
- :mod:`~assay.evidence.plan`: the plan and the analysis it preregisters;
- :mod:`~assay.evidence.documents`: the image record, the self-test report, the authorization;
- :mod:`~assay.evidence.catalog`: ``TABLES`` (view, stage folder, file, row type), from which
  the report and ``assay sql`` register their DuckDB views;
- :mod:`~assay.evidence.files`: one reader and one writer per artefact.

Use it as ``from assay import evidence`` (``evidence.read_plan(run)``,
``evidence.write_table(evidence.VERDICTS, run, rows)``). Stage modules in ``assay.pipeline``
read their inputs from here, never from each other.

Names load on first use (as in ``assay.sandbox``): ``evidence.X`` imports the submodules in the
order below until one defines ``X``, so a module that needs only a path (``evidence.DATA``, a
command's ``--data`` default) does not import pyarrow and pydantic.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.evidence.catalog import *
    from assay.evidence.documents import *
    from assay.evidence.files import *
    from assay.evidence.paths import *
    from assay.evidence.plan import *
    from assay.evidence.rows import *

SUBMODULES = ("paths", "rows", "plan", "documents", "catalog", "files")
"""Lightest first: paths needs only pathlib, files needs pyarrow and every other submodule."""


def __getattr__(name: str) -> Any:
    if name in SUBMODULES:
        return import_module(f"assay.evidence.{name}")
    if not name.startswith("_"):
        for submodule in SUBMODULES:
            module = import_module(f"assay.evidence.{submodule}")
            if hasattr(module, name):
                value = getattr(module, name)
                globals()[name] = value  # once: later lookups do not come back here
                return value
    raise AttributeError(f"module 'assay.evidence' has no attribute {name!r}")

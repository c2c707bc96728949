"""What a script runs: its imports of assay (wherever they are written), followed through the
import graph with every enclosing package, plus the data packaged beside a package."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core import stage_code

SRC = Path(__file__).resolve().parents[2] / "src" / "assay"


@pytest.fixture(scope="module")
def graph():
    return stage_code.build_graph()


def test_every_import_statement_counts_wherever_it_is(graph) -> None:
    source = (
        "import sys\n"
        "from assay.pipeline import report\n"
        "from assay.config.params import load_params\n"
        "import assay.core.digest\n"
        "def main():\n"
        "    from assay.evidence.paths import DATA\n"
        "from . import sibling\n"
    )
    assert stage_code.script_imports(source, graph.modules) == {
        "assay.pipeline",
        "assay.pipeline.report",
        "assay.config.params",
        "assay.core.digest",
        "assay.evidence.paths",
    }


def test_the_closure_holds_every_enclosing_package_and_what_it_imports(graph) -> None:
    modules = stage_code.closure(graph, {"assay.evidence.paths"})
    # evidence/__init__ runs first, and names every submodule (its lazy exports)
    assert {"assay", "assay.evidence", "assay.evidence.files", "assay.core.records"} <= modules
    assert "assay.report" not in modules


def test_module_files_and_the_data_packaged_beside_a_package() -> None:
    assert stage_code.module_file("assay.report", SRC) == SRC / "report" / "__init__.py"
    assert stage_code.module_file("assay.core.digest", SRC) == SRC / "core" / "digest.py"
    files = stage_code.code_files({"assay.report"}, SRC)
    assert SRC / "report" / "queries" / "outcomes.sql" in files
    assert SRC / "report" / "templates" / "index.html.j2" in files
    assert SRC / "report" / "primary.py" not in files, "modules come from the graph, not folders"
    assert not any(p.suffix == ".py" and p.parent != SRC / "report" for p in files)

"""Every codebase reference scores as declared under the structural evaluator, and so does the
codebase-near neighbour in each form (read as an ``implement``): the clean neighbour reuses the
helper, the inline one duplicates it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay import structure
from assay.fixtures.codebase import load_declarations

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = [v for v in (7,) if v in structure.EVALUATOR_VERSIONS]
DEF = re.compile(r"^def \w+\(", re.MULTILINE)
DECLARATIONS = {d.task.id: d for d in load_declarations(ROOT / "fixtures")}


def _verdict(task, source: str, version: int) -> str:
    result = structure.score(
        source,
        helper=task.helper,
        helper_module=task.helper_module,
        primitives=task.primitives,
        version=version,
    )
    return str(result.verdict)


@pytest.mark.parametrize("version", VERSIONS)
def test_references_score_as_declared(version: int) -> None:
    scored = {
        (subject_id, kind): _verdict(d.task, getattr(d.task.references, kind), version)
        for subject_id, d in DECLARATIONS.items()
        for kind in ("reused", "duplicated")
    }
    assert scored == {key: key[1] for key in scored}
    assert len(DECLARATIONS) == 11


@pytest.mark.parametrize("version", VERSIONS)
def test_neighbour_forms_score_as_their_form(version: int) -> None:
    scored = {}
    for subject_id, d in DECLARATIONS.items():
        for form, text in (("reused", d.near_clean), ("duplicated", d.near_inline)):
            imports = "\n".join(d.near_imports) if form == "duplicated" else ""
            source = imports + "\n\n\n" + DEF.sub("def implement(", text.strip(), count=1)
            scored[(subject_id, form)] = _verdict(d.task, source, version)
    assert scored == {key: key[1] for key in scored}

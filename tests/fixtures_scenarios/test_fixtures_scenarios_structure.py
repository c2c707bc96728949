"""Every reference scores as declared under the structural evaluator, on every subject.

The caller templates are held to the same standard: an existing caller's clean form, read as an
``implement``, is reuse, and its inline form is duplication, so the inline callers really are the
mess the scenarios claim.
"""

from __future__ import annotations

import re

import pytest

from assay import structure
from assay.fixtures.layered import LayeredDeclaration, render_imports

VERSIONS = [v for v in (6, 7) if v in structure.EVALUATOR_VERSIONS]
DEF = re.compile(r"^def \w+\(", re.MULTILINE)


def verdict(declaration: LayeredDeclaration, source: str, version: int) -> str:
    task = declaration.task
    result = structure.score(
        source,
        helper=task.helper,
        helper_module=task.helper_module,
        primitives=task.primitives,
        version=version,
    )
    return str(result.verdict)


@pytest.mark.parametrize("version", VERSIONS)
def test_references_score_as_declared(
    declarations: dict[str, LayeredDeclaration], version: int
) -> None:
    scored = {
        (subject_id, kind): verdict(d, getattr(d.task.references, kind), version)
        for subject_id, d in declarations.items()
        for kind in ("reused", "duplicated")
    }
    assert scored == {key: key[1] for key in scored}
    assert len(scored) == 24


@pytest.mark.parametrize("version", VERSIONS)
def test_caller_forms_score_as_their_form(
    declarations: dict[str, LayeredDeclaration], version: int
) -> None:
    expected = {"clean": "reused", "inline": "duplicated"}
    scored = {}
    for subject_id, d in declarations.items():
        imports = {"clean": d.callers.clean_imports, "inline": d.callers.inline_imports}
        for form, wanted in expected.items():
            caller = d.callers.render(d.callers.names[0], inline=form == "inline")
            source = (
                render_imports(imports[form])
                + "\n\n\n"
                + DEF.sub("def implement(", caller, count=1)
            )
            scored[(subject_id, form)] = (verdict(d, source, version), wanted)
    assert {k: v[0] for k, v in scored.items()} == {k: v[1] for k, v in scored.items()}

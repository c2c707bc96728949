"""Invariants of codebase, codebase-noimport and codebase-near: only the intended files
differ, the helper's module and the target are identical across arms, every other slice file
is the pinned byte stream, and no hidden field reaches a prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.core.digest import sha256_hex
from assay.fixtures.codebase import Edit, apply_edits, load_declarations
from assay.fixtures.errors import FixtureError
from assay.fixtures.model import References
from assay.science.render import render_input

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden" / "digests.json"


def _helper_path(subject) -> str:
    return subject.task.helper_module.replace(".", "/") + ".py"


@pytest.mark.parametrize("name", ["codebase", "codebase-noimport", "codebase-near"])
def test_only_the_callers_and_the_neighbour_differ(codebase_scenarios, name):
    scenario, provenance = codebase_scenarios[name]
    declarations = {d.task.id: d for d in load_declarations(ROOT / "fixtures")}
    for subject, origin in zip(scenario.subjects, provenance, strict=True):
        clean = subject.arm("clean").as_mapping()
        inconsistent = subject.arm("inconsistent").as_mapping()
        assert clean.keys() == inconsistent.keys()
        differing = {path for path in clean if clean[path] != inconsistent[path]}
        edited = {edit.path for edit in declarations[subject.id].edits}
        expected = edited | ({subject.target} if name == "codebase-near" else set())
        assert differing == expected, subject.id
        assert 2 <= len(edited) <= 3, subject.id
        assert _helper_path(subject) not in differing
        # everything but the target in the clean arm is the pinned slice, byte for byte
        pinned = {f.path: f.sha256 for f in origin.slice.files}
        assert {p: sha256_hex(t) for p, t in clean.items() if p != subject.target} == pinned
        for arm in subject.arms:
            assert arm.sandbox == "large"


def test_target_variants(codebase_scenarios):
    declarations = {d.task.id: d for d in load_declarations(ROOT / "fixtures")}
    for subject in codebase_scenarios["codebase"][0].subjects:
        d = declarations[subject.id]
        for scenario in ("codebase", "codebase-noimport", "codebase-near"):
            realised = codebase_scenarios[scenario][0].subject(subject.id)
            clean = realised.arm("clean").file(d.target)
            inline = realised.arm("inconsistent").file(d.target)
            has_import = d.helper_import in clean.splitlines()
            assert has_import == (scenario != "codebase-noimport"), (scenario, subject.id)
            if scenario == "codebase-near":
                assert d.helper_import in inline.splitlines()
                assert d.near_clean.strip() in clean and d.near_inline.strip() in inline
                for line in d.near_imports:
                    assert line in inline.splitlines() and line not in clean.splitlines()
            else:
                assert clean == inline


def test_no_hidden_field_in_any_prompt(codebase_scenarios):
    """Changing every hidden field (id, family, vectors, references) leaves every prompt
    byte-identical: nothing hidden reaches a prompt."""
    for scenario, _ in codebase_scenarios.values():
        for subject in scenario.subjects:
            task = subject.task
            probe = subject.model_copy(
                update={
                    "task": task.model_copy(
                        update={
                            "id": "hidden-probe",
                            "family": "cosmetic",
                            "vectors": tuple(
                                v.model_copy(update={"expected": ["probe", i]})
                                for i, v in enumerate(task.vectors)
                            ),
                            "references": References(reused="probe", duplicated="probe"),
                        }
                    )
                }
            )
            for arm in subject.arms:
                text = render_input(subject, arm.name, "layered").text
                assert render_input(probe, arm.name, "layered").text == text
                assert subject.id not in text and task.references.duplicated.strip() not in text


def test_an_edit_must_apply_exactly_once(tmp_path):
    files = {"a.py": "x = 1\nx = 1\n", "b.py": "y = 2\n"}
    with pytest.raises(FixtureError, match="occurs 2 times"):
        apply_edits(files, (Edit(path="a.py", before="x = 1", after="x = 3"),), tmp_path)
    with pytest.raises(FixtureError, match="occurs 0 times"):
        apply_edits(files, (Edit(path="b.py", before="z", after="w"),), tmp_path)
    with pytest.raises(FixtureError, match="not in the slice"):
        apply_edits(files, (Edit(path="c.py", before="z", after="w"),), tmp_path)


def test_subject_digests_are_golden(codebase_scenarios):
    digests = {
        name: {s.id: s.digest for s in scenario.subjects}
        for name, (scenario, _) in codebase_scenarios.items()
    }
    assert digests == json.loads(GOLDEN.read_text(encoding="utf-8"))

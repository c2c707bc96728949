"""Caller errors are exceptions (unlike any source, which always gets a verdict)."""

from __future__ import annotations

import pytest

from assay.structure import DEFAULT_VERSION, EVALUATOR_VERSIONS, score

SOURCE = "def implement(value):\n    return normalize(value)\n"


def test_registry() -> None:
    assert sorted(EVALUATOR_VERSIONS) == [4, 5, 6, 7]
    assert DEFAULT_VERSION == 7
    assert all(spec.number == number for number, spec in EVALUATOR_VERSIONS.items())
    assert (
        score(SOURCE, helper="normalize", helper_module=None, primitives=[]).evaluator_version == 7
    )


@pytest.mark.parametrize("version", [0, 3, 8])
def test_unknown_version(version: int) -> None:
    with pytest.raises(ValueError, match="unknown evaluator version"):
        score(SOURCE, helper="normalize", helper_module=None, primitives=[], version=version)


@pytest.mark.parametrize("primitive", ["", "re..sub", "re.", "1abc", "str.strip()"])
def test_malformed_primitive(primitive: str) -> None:
    with pytest.raises(ValueError, match="not a dotted name"):
        score(SOURCE, helper="normalize", helper_module=None, primitives=[primitive])

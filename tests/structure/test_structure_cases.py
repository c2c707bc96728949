"""Walk the case tables in ``cases/*.yaml``: each source scored under every evaluator version."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml

from assay.structure import EVALUATOR_VERSIONS, StructuralReason, score
from assay.structure.positions import PositionReason
from assay.structure.rules import RuleReason

CASES = Path(__file__).parent / "cases"


def _expected(expect: dict[Any, str], version: int, where: str) -> tuple[str, str]:
    text = expect.get(version, expect.get("all"))
    if text is None:
        raise ValueError(f"{where}: no expectation for version {version}")
    verdict, reason = text.split()
    return verdict, reason


def _parses_here(case: dict[str, Any]) -> bool:
    """False for a case whose syntax (``since``) is newer than the running Python."""
    since = case.get("since")
    return since is None or sys.version_info[:2] >= tuple(int(p) for p in since.split("."))


def _load() -> list[Any]:
    params = []
    for table in sorted(CASES.glob("*.yaml")):
        document = yaml.safe_load(table.read_text(encoding="utf-8"))
        defaults = document.get("defaults", {})
        for case in document["cases"]:
            merged = {**defaults, **case}
            where = f"{table.name}:{merged['name']}"
            unknown = set(merged["expect"]) - {"all", *EVALUATOR_VERSIONS}
            if unknown:
                raise ValueError(f"{where}: unknown versions {unknown}")
            expect = merged["expect"] if _parses_here(merged) else merged["before"]
            for version in sorted(EVALUATOR_VERSIONS):
                expected = _expected(expect, version, where)
                params.append(
                    pytest.param(
                        merged, version, expected, id=f"{table.stem}:{merged['name']}:v{version}"
                    )
                )
    return params


PARAMS = _load()


@pytest.mark.parametrize(("case", "version", "expected"), PARAMS)
def test_case(case: dict[str, Any], version: int, expected: tuple[str, str]) -> None:
    result = score(
        case["source"],
        helper=case["helper"],
        helper_module=case["helper_module"],
        primitives=case["primitives"],
        version=version,
        earlier=case.get("earlier", {}),
    )
    assert (result.verdict, result.reason) == expected
    assert result.evaluator_version == version


def _literal_values(annotation: Any) -> set[str]:
    values: set[str] = set()
    for argument in get_args(annotation):
        values |= _literal_values(argument) if get_args(argument) else {argument}
    return values


def test_tables_cover_every_rule_and_position_reason() -> None:
    seen = {p.values[2][1] for p in PARAMS}
    every = _literal_values(RuleReason) | _literal_values(PositionReason)
    assert every - seen == set()
    assert seen <= _literal_values(StructuralReason)

"""Extraction version 3: answers that print the target module again (case table
``tests/cases/extract_v3.yaml``), and what version 2 made of the same answers."""

from pathlib import Path

import pytest
import yaml

from assay.science.extract import extract_candidate
from assay.science.gate import check_source
from assay.science.reprint import Repository

ROOT = Path(__file__).resolve().parents[2]
CASES = yaml.safe_load((Path(__file__).parents[1] / "cases" / "extract_v3.yaml").read_text())


def repository(case: dict) -> Repository:
    target = (
        (ROOT / case["module_file"]).read_text(encoding="utf-8")
        if "module_file" in case
        else case["module"]
    )
    return Repository(target=target, others=case.get("others", {}))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_extract_v3(case):
    result = extract_candidate(case["text"], version=3, repository=repository(case))
    assert (result.status, result.source) == (case["status"], case.get("source"))


@pytest.mark.parametrize(
    "case", [c for c in CASES if "v2" in c], ids=[c["id"] for c in CASES if "v2" in c]
)
def test_what_version_2_made_of_it(case):
    """Each case's ``v2`` entry: ``same`` (version 3 gives what version 2 gives), version 2's
    status, or the gate's refusal of version 2's candidate."""
    result = extract_candidate(case["text"], version=2)
    if case["v2"] == "same":
        assert extract_candidate(case["text"], version=3, repository=repository(case)) == result
    elif "status" in case["v2"]:
        assert result.status == case["v2"]["status"]
    else:
        gate = check_source(result.source or "", helper="unused_helper", helper_module=None)
        assert gate.reason == case["v2"]["gate"]


def test_the_table_covers_every_shape():
    assert len({c["id"] for c in CASES}) == len(CASES) >= 20
    statuses = {c["status"] for c in CASES}
    assert {"code", "module-changed", "other-file-reprinted", "reprint-only"} <= statuses
    assert any(c.get("origin", "").startswith("Qwen2.5-Coder") for c in CASES)
    assert sum(c.get("v2") == "same" for c in CASES) >= 4


def test_reprinted_candidates_pass_the_gate():
    """What version 3 keeps of an answer that only adds ``implement`` is what the gate admits."""
    for case in CASES:
        if case["status"] == "code" and isinstance(case.get("v2"), dict) and "gate" in case["v2"]:
            source = case["source"]
            assert check_source(source, helper="unused_helper", helper_module=None).accepted, case


def test_version_3_needs_the_repository():
    with pytest.raises(ValueError, match="repository"):
        extract_candidate("def implement(x):\n    return x\n", version=3)


def test_layout_quotes_comments_and_docstrings_do_not_matter():
    target = 'CENT = Decimal("0.01")\n\n\ndef helper(x):\n    """Doc."""\n    return x  # why\n'
    answer = (
        "```python\nCENT = Decimal('0.01')\ndef helper(x):\n    '''Other words.'''\n"
        "    return (x)\ndef implement(v):\n    return helper(v)\n```"
    )
    result = extract_candidate(answer, version=3, repository=Repository(target=target))
    assert result.source == "def implement(v):\n    return helper(v)\n"


def test_a_target_that_does_not_parse_drops_nothing():
    """A chain whose earlier step did not parse shows a target with no tree to compare."""
    answer = "```python\nCENT = 1\ndef implement(v):\n    return v\n```"
    result = extract_candidate(answer, version=3, repository=Repository(target="def (:\n"))
    assert result.source == "CENT = 1\ndef implement(v):\n    return v\n"

from pathlib import Path

import pytest
import yaml

from assay.science.extract import CURRENT_VERSION, VERSIONS, extract_candidate
from assay.science.gate import check_source
from assay.science.reprint import Repository

CASES = Path(__file__).parents[1] / "cases"
V1_CASES = yaml.safe_load((CASES / "extract.yaml").read_text())
V2_CASES = yaml.safe_load((CASES / "extract_v2.yaml").read_text())


@pytest.mark.parametrize("case", V1_CASES, ids=[c["id"] for c in V1_CASES])
def test_extract_v1(case):
    result = extract_candidate(case["text"], version=1)
    assert (result.status, result.source) == (case["status"], case["source"])


@pytest.mark.parametrize("case", V2_CASES, ids=[c["id"] for c in V2_CASES])
def test_extract_v2(case):
    result = extract_candidate(case["text"], version=2)
    assert (result.status, result.source) == (case["status"], case["source"])


def test_case_table_is_large_enough():
    assert len(V2_CASES) >= 30
    assert len({c["id"] for c in V2_CASES}) == len(V2_CASES)


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_no_completion_is_not_executed(version):
    assert extract_candidate(None, version=version).status == "not-executed"


def test_unknown_version_names_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown extraction version 9 \(known: \[1, 2, 3\]\)"):
        extract_candidate("x", version=9)


def test_default_is_current_version():
    assert max(VERSIONS) == CURRENT_VERSION


BARE = "```\nfrom h import helper\n\ndef implement(v):\n    return helper(v)\n```\n"
TWO_BLOCKS = "```python\nfrom h import helper\n```\n\n```python\ndef implement(v):\n    return helper(v)\n```"


@pytest.mark.parametrize(
    ("text", "v1_refusal"), [(BARE, "syntax-error"), (TWO_BLOCKS, "no-implement")]
)
def test_v2_keeps_the_evidence_v1_lost(text, v1_refusal):
    """The review's R2: v1 turned these into rejected candidates; v2 admits them."""

    def gate(source):
        return check_source(source, helper="helper", helper_module="h")

    assert gate(extract_candidate(text, version=1).source).reason == v1_refusal
    assert gate(extract_candidate(text, version=2).source).accepted


def test_hostile_text_never_raises():
    hostile = ["```python\n" + "(" * 5000 + "\n```", "\x00" * 10, "```\n" * 999, "def (" * 300]
    for text in hostile:
        for version in (2, 3):
            result = extract_candidate(text, version, repository=Repository(target="x = 1\n"))
            assert result.status in {"code", "no-code", "ambiguous-extraction"}

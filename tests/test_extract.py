from pathlib import Path

import pytest
import yaml

from assay.extract import extract_candidate

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "extract.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_extract(case):
    result = extract_candidate(case["text"])
    assert (result.status, result.source) == (case["status"], case["source"])


def test_no_completion_is_not_executed():
    assert extract_candidate(None).status == "not-executed"

"""apply_change: the merging case table, the rest of the repository, and where the change landed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.science.change import ChangeError, apply_change, describe_change

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "merge.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_merge_case(case: dict[str, str]) -> None:
    after = apply_change({"module.py": case["target"]}, "module.py", case["candidate"])
    assert after["module.py"] == case["expected"]


def test_other_files_are_untouched() -> None:
    files = {"module.py": "import os\n", "helpers.py": "def helper():\n    return 1\n"}
    after = apply_change(
        files, "module.py", "from helpers import helper\ndef implement():\n    return helper()\n"
    )
    assert after["helpers.py"] == files["helpers.py"]
    assert files["module.py"] == "import os\n"  # the input mapping is not changed


def test_describe_change_reports_changed_and_definition_lines() -> None:
    target = "from x import b\n\n\ndef existing():\n    return b\n"
    candidate = "from x import a\n\ndef implement():\n    # note\n\n    return a\n"
    change = describe_change({"module.py": target}, "module.py", candidate)
    lines = change.files["module.py"].splitlines()
    assert lines[0] == "from x import b, a"
    assert change.definition_lines == (8, 11)
    assert lines[7] == "def implement():"
    # the merged import line, the two separating blank lines and the four definition lines
    assert change.changed_lines == (1, 6, 7, 8, 9, 10, 11)


@pytest.mark.parametrize("role", ["target", "candidate"])
def test_unparseable_input_is_a_change_error(role: str) -> None:
    target, candidate = "def existing():\n    return 1\n", "def implement():\n    return 2\n"
    if role == "target":
        target = "def existing(:\n"
    else:
        candidate = "def implement(:\n"
    with pytest.raises(ChangeError, match=role):
        apply_change({"module.py": target}, "module.py", candidate)

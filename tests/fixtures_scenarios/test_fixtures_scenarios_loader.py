"""Malformed layered and padding declarations fail with a FixtureError naming file and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from assay.fixtures.context import load_padding_modules
from assay.fixtures.errors import FixtureError
from assay.fixtures.layered import load_declaration

CASES = yaml.safe_load(
    (Path(__file__).parent / "cases" / "loader_errors.yaml").read_text(encoding="utf-8")
)
SUBJECT = "order-charge"


def apply(folder: Path, edit: dict) -> None:
    ((kind, spec),) = edit.items()
    path = folder / spec["file"]
    if kind == "delete":
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    elif kind == "write":
        path.write_text(spec["text"], encoding="utf-8")
    else:
        text = path.read_text(encoding="utf-8")
        assert spec["old"] in text, f"edit does not apply: {spec['old']!r}"
        path.write_text(text.replace(spec["old"], spec["new"], 1), encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[f"{c['loader']}: {c['name']}" for c in CASES])
def test_malformed_declaration_names_file_and_field(
    case: dict, fixtures_root: Path, tmp_path: Path
) -> None:
    if case["loader"] == "layered":
        folder = tmp_path / SUBJECT
        shutil.copytree(fixtures_root / "layered" / SUBJECT, folder)
        shutil.copytree(fixtures_root / "layered" / "_shared", tmp_path / "_shared")
        load = load_declaration
    else:
        folder = tmp_path / "context"
        shutil.copytree(fixtures_root / "context", folder)
        load = load_padding_modules
    load(folder)  # the unedited copy loads
    for edit in case["edits"]:
        apply(folder, edit)
    with pytest.raises(FixtureError) as caught:
        load(folder)
    assert caught.value.path == str(folder / case["error"]["file"])
    assert caught.value.field == case["error"]["field"]
    assert case["error"]["field"] in str(caught.value)

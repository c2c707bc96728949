"""`assay check-task` with the sandbox: in the image the image stage recorded, a bank task's
references pass every vector on both arms and the known-wrong answer fails; a wrong expected
value is named by arm, reference and the first failing vector."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay import evidence
from assay.cli import main
from assay.sandbox.image import ensure_image

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.docker


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for folder in ("v1", "bank"):
        shutil.copytree(ROOT / "fixtures" / folder, tmp_path / "fixtures" / folder)
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_sandbox_passes_a_sound_task_and_names_a_wrong_vector(
    project: Path, sandbox_image: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ensure_image("standard", project / evidence.image_record("standard")).image_id == (
        sandbox_image
    )
    assert main(["check-task", "bank", "split-bill"]) == 0
    assert capsys.readouterr().out.endswith("  sandbox: ok\n")

    declaration = project / "fixtures" / "bank" / "split-bill" / "task.toml"
    text = declaration.read_text(encoding="utf-8")
    declaration.write_text(text.replace('"Fay" = 0 }', '"Fay" = 1 }', 1), encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["check-task", "bank", "split-bill"])
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 4, errors  # both references on both arms
    assert all("first failing case: vectors[2]" in line for line in errors), errors
    assert "sandbox: clean reference-reused: incorrect (wrong-value), expected correct" in errors[0]

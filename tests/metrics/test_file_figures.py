"""Per-file figures remembered across processes and stages (assay.metrics.file_figures)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from assay.metrics import file_figures, radon_tool
from assay.metrics.file_figures import remembered

SOURCE = "def f(x):\n    if x:\n        return 1\n    return 2\n"


@pytest.fixture
def memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("ASSAY_MEMO", raising=False)
    monkeypatch.setenv("ASSAY_MEMO_DIR", str(tmp_path / "memo"))
    return tmp_path / "memo" / file_figures.MEMO


def counting(values: tuple[float, ...]) -> tuple[list[str], object]:
    calls: list[str] = []

    def figures(text: str) -> tuple[float, ...]:
        calls.append(text)
        return values

    return calls, figures


def test_a_figure_computed_once_is_read_back_by_another_process_cache(memo: Path) -> None:
    calls, figures = counting((3, 4.5))
    first = remembered("radon", Path(radon_tool.__file__))(figures)  # type: ignore[arg-type]
    assert first("a = 1\n") == (3, 4.5)
    second = remembered("radon", Path(radon_tool.__file__))(figures)  # type: ignore[arg-type]
    assert second("a = 1\n") == (3, 4.5)
    assert calls == ["a = 1\n"]  # the second cache (a new process's) found it in the memo
    assert len(list(memo.rglob("*.json"))) == 1
    assert second("b = 2\n") == (3, 4.5)
    assert calls == ["a = 1\n", "b = 2\n"]  # another text is another figure


def test_off_remembers_nothing(memo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_MEMO", "off")
    calls, figures = counting((1,))
    for _ in range(2):
        assert remembered("radon", Path(radon_tool.__file__))(figures)("x\n") == (1,)  # type: ignore[arg-type]
    assert len(calls) == 2
    assert not memo.exists()


def test_a_failure_or_a_nan_is_never_remembered(memo: Path) -> None:
    def broken(text: str) -> tuple[float, ...]:
        raise SyntaxError("no")

    with pytest.raises(SyntaxError):
        remembered("radon", Path(radon_tool.__file__))(broken)("(\n")
    calls, figures = counting((math.nan,))
    for _ in range(2):
        result = remembered("radon", Path(radon_tool.__file__))(figures)("y\n")  # type: ignore[arg-type]
        assert math.isnan(result[0])
    assert len(calls) == 2
    assert not list(memo.rglob("*.json"))


@pytest.mark.process
def test_radon_figures_are_the_same_computed_or_remembered(memo: Path) -> None:
    """A fresh process computes and remembers; this one reads the memo: the same figures."""
    script = (
        "from assay.metrics import radon_tool, complexipy_tool;"
        f"print(radon_tool.measure({{'m.py': {SOURCE!r}}}).model_dump_json());"
        f"print(complexipy_tool.measure({{'m.py': {SOURCE!r}}}).model_dump_json())"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert len(list(memo.rglob("*.json"))) == 2
    again = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert again == fresh
    assert '"sloc":4.0' in fresh

"""``assay sign-test POS NEG [--alpha A]``."""

from __future__ import annotations

import json

import pytest

from assay.cli import main


def test_prints_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sign-test", "9", "1"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == {
        "positive": 9,
        "negative": 1,
        "n": 10,
        "alpha": 0.05,
        "p_value": pytest.approx(22 / 1024, rel=1e-12),
        "significant": True,
        "descriptive_only": False,
    }


def test_alpha_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sign-test", "9", "1", "--alpha", "0.01"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert (printed["alpha"], printed["significant"]) == (0.01, False)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--", "-1", "2"], "non-negative"),
        (["3", "2", "--alpha", "1.5"], "alpha"),
        (["3", "x"], "invalid int value"),
        (["3"], "required"),
    ],
)
def test_bad_arguments_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["sign-test", *argv])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err

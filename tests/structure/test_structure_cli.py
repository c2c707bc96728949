"""``assay score-structure``: one JSON line per file, exit 0 for any verdict, 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli import main

REUSED = "def implement(value):\n    return slugify(value)\n"
DUPLICATED = "import re\n\n\ndef implement(value):\n    return re.sub('a', 'b', value.lower())\n"
REFUSED = "X = 1\n\n\ndef implement(value):\n    return value\n"
ANNOTATED = "def implement(value: list[str]):\n    return slugify(value)\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    written = {}
    for name, text in {
        "reused": REUSED,
        "duplicated": DUPLICATED,
        "refused": REFUSED,
        "annotated": ANNOTATED,
    }.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text, encoding="utf-8")
        written[name] = path
    (tmp_path / "latin1.py").write_bytes(b"def implement(v):\n    return '\xe9'\n")
    written["latin1"] = tmp_path / "latin1.py"
    return written


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    assert main(argv) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_one_line_per_file(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    order = ["reused", "duplicated", "refused", "latin1", "annotated"]
    rows = _run(
        [
            "score-structure",
            "--helper",
            "slugify",
            "--helper-module",
            "shop.text",
            "--primitive",
            "re.sub",
            "--primitive",
            "str.lower",
            *(str(files[n]) for n in order),
        ],
        capsys,
    )
    assert [
        (Path(str(r["file"])).stem, r["verdict"], r["reason"], r["evaluator_version"]) for r in rows
    ] == [
        ("reused", "reused", "helper-call", 7),
        ("duplicated", "duplicated", "primitive-only", 7),
        ("refused", "rejected", "module-statement", 7),
        ("latin1", "rejected", "not-utf8", 7),
        ("annotated", "reused", "helper-call", 7),
    ]


def test_evaluator_version(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rows = _run(
        [
            "score-structure",
            "--helper",
            "slugify",
            "--evaluator-version",
            "6",
            str(files["annotated"]),
        ],
        capsys,
    )
    assert (rows[0]["verdict"], rows[0]["reason"], rows[0]["evaluator_version"]) == (
        "rejected",
        "unsupported-annotation",
        6,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--helper", "slugify", "--evaluator-version", "3"], "unknown evaluator version 3"),
        (["--helper", "slugify", "--evaluator-version", "seven"], "invalid int value"),
        (["--helper", "not an identifier"], "not a Python identifier"),
        (["--helper", "slugify", "--primitive", "re..sub"], "not a dotted name"),
        (["--helper", "slugify", "MISSING"], "cannot read"),
        (["--primitive", "re.sub"], "required: --helper"),
    ],
)
def test_bad_arguments_exit_2(
    files: dict[str, Path], argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if "MISSING" in argv:
        argv = [a.replace("MISSING", str(files["reused"].with_name("missing.py"))) for a in argv]
    else:
        argv = [*argv, str(files["reused"])]
    with pytest.raises(SystemExit) as exit_:
        main(["score-structure", *argv])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""


def test_unreadable_file_prints_nothing(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(
            [
                "score-structure",
                "--helper",
                "slugify",
                str(files["reused"]),
                str(files["reused"].parent),
            ]
        )
    assert capsys.readouterr().out == ""


@pytest.mark.process
def test_console_script(files: dict[str, Path]) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay.cli",
            "score-structure",
            "--helper",
            "slugify",
            str(files["reused"]),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["verdict"] == "reused"


def test_extreme_shapes_and_v8_through_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shapes that raised before (a 400-branch ``elif`` chain) and one the parser cannot
    take, scored by the command: a verdict or a named refusal each."""
    chain = "def implement(value):\n" + "".join(
        f"    {'if' if i == 0 else 'elif'} value == {i}:\n        value = {i}\n" for i in range(400)
    )
    sources = {
        "chain": chain + "    return slugify(value)\n",
        "deep": "def implement(value):\n    return slugify(" + "-" * 100_000 + "value)\n",
        "partial": "from functools import partial\n\n\ndef implement(value):\n"
        "    return partial(slugify, sep='-')(value)\n",
    }
    paths = []
    for name, text in sources.items():
        paths.append(tmp_path / f"{name}.py")
        paths[-1].write_text(text, encoding="utf-8")
    for version, expected in (
        (7, ["helper-call", "too-complex", "helper-not-called"]),
        (8, ["helper-call", "too-complex", "helper-call"]),
    ):
        argv = ["score-structure", "--helper", "slugify", "--evaluator-version", str(version)]
        rows = _run([*argv, *map(str, paths)], capsys)
        assert [row["reason"] for row in rows] == expected

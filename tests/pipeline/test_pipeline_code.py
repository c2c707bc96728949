"""The code stage's digests: every stage depends on its own, the declaration covers what the
stages ran before (their scripts), the code stage sees every declared file, and an edit rewrites
exactly the digests of the stages that declare the edited file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from assay.pipeline.code import CodeDeclarationError, load_declaration, publish
from tests.dvc_stages import stage_bodies

ROOT = Path(__file__).resolve().parents[2]
MALFORMED = yaml.safe_load(
    (Path(__file__).parent / "cases" / "code_declaration_malformed.yaml").read_text("utf-8")
)["cases"]


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_every_stage_depends_on_its_own_digest_and_on_no_code_path(in_root: None) -> None:
    declaration = load_declaration()
    stages = stage_bodies()
    assert set(declaration) == set(stages) - {"code"}
    for name, body in stages.items():
        deps = body.get("deps", [])
        if name == "code":
            continue
        assert f"data/code/{name}.json" in deps, name
        assert f"stages/{name}.py" in declaration[name], name
        code_paths = ("src", "stages", "sandbox", "tools", "fixtures", "uv.lock")
        direct = [d for d in deps if d.startswith(code_paths)]
        assert direct == [], f"{name} names code directly: {direct}"


def test_the_code_stage_depends_on_every_declared_path(in_root: None) -> None:
    """Otherwise an edit of a declared file would not re-run the code stage at all."""
    code_deps = [Path(d) for d in stage_bodies()["code"]["deps"]]
    for stage, paths in load_declaration().items():
        for path in map(Path, paths):
            assert any(path == dep or dep in path.parents for dep in code_deps), (stage, path)


def _tree(tmp_path: Path) -> Path:
    for name, text in {
        "stages/a.py": "a\n",
        "stages/b.py": "b\n",
        "lib/shared.py": "shared\n",
        "lib/only_b.py": "only b\n",
        "lib/__pycache__/shared.cpython-311.pyc": "bytecode",
        "lib/stray.pyc": "bytecode",
        "lib/node_modules/x.js": "a tool's install",
        ".dvcignore": "__pycache__/\n*.py[cod]\nnode_modules/\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "code.toml").write_text(
        'a = ["stages/a.py", "lib/shared.py"]\nb = ["stages/b.py", "lib"]\n', encoding="utf-8"
    )
    return tmp_path


def test_an_edit_rewrites_exactly_the_digests_of_the_stages_that_declare_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    out = tmp_path / "data" / "code"
    assert publish(load_declaration(Path("code.toml")), out) == ["a", "b"]
    b = json.loads((out / "b.json").read_text(encoding="utf-8"))
    assert b["stage"] == "b"
    assert sorted(b["files"]) == ["lib/only_b.py", "lib/shared.py", "stages/b.py"], ".dvcignore"
    assert publish(load_declaration(Path("code.toml")), out) == []

    (tmp_path / "lib" / "only_b.py").write_text("only b, edited\n", encoding="utf-8")
    stamp = (out / "a.json").stat().st_mtime_ns
    assert publish(load_declaration(Path("code.toml")), out) == ["b"]
    assert (out / "a.json").stat().st_mtime_ns == stamp
    (tmp_path / "lib" / "shared.py").write_text("shared, edited\n", encoding="utf-8")
    assert publish(load_declaration(Path("code.toml")), out) == ["a", "b"]
    (tmp_path / "lib" / "new.py").write_text("new\n", encoding="utf-8")
    assert publish(load_declaration(Path("code.toml")), out) == ["b"], "a new file in a folder"

    (tmp_path / "code.toml").write_text('a = ["stages/a.py"]\n', encoding="utf-8")
    assert publish(load_declaration(Path("code.toml")), out) == ["a"]
    assert sorted(os.listdir(out)) == ["a.json"], "the digest of a stage no longer declared"


@pytest.mark.parametrize("case", MALFORMED, ids=[case["name"] for case in MALFORMED])
def test_a_bad_declaration_is_one_line_naming_the_stage_and_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: dict[str, str]
) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    (tmp_path / "code.toml").write_text(case["text"] + "\n", encoding="utf-8")
    with pytest.raises(CodeDeclarationError) as raised:
        load_declaration(Path("code.toml"))
    assert str(raised.value).startswith(case["message"])
    assert "\n" not in str(raised.value)

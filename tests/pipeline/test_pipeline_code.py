"""The code stage's digests: every stage depends on its own; a digest holds every module the
stage's script imports (read again here by the standard library's modulefinder), the files
packaged beside them and what pipeline/code.toml declares; the code stage depends on all of it;
an edit rewrites exactly the digests of the stages that run the edited file."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from assay.core import stage_code
from assay.pipeline.code import (
    CodeDeclarationError,
    digests,
    ignored_by_dvc,
    load_declaration,
    publish,
    stage_paths,
)
from tests.dvc_stages import stage_bodies
from tests.stage_imports import script_modules, stage_scripts

ROOT = Path(__file__).resolve().parents[2]
MALFORMED = yaml.safe_load(
    (Path(__file__).parent / "cases" / "code_declaration_malformed.yaml").read_text("utf-8")
)["cases"]


@pytest.fixture(scope="module")
def digested() -> Iterator[dict[str, set[str]]]:
    """Stage → every file its digest holds (what the code stage writes, without writing)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        paths = stage_paths(load_declaration(), stage_code.build_graph())
        ignored = ignored_by_dvc()
        yield {
            stage: set(digests(sorted(files), ignored, lambda _: ""))
            for stage, files in paths.items()
        }


def test_every_stage_has_a_script_an_entry_and_its_own_digest() -> None:
    stages = stage_bodies()
    declared = load_declaration(ROOT / "pipeline" / "code.toml").stages
    assert set(declared) == set(stages) - {"code"} == set(stage_scripts())
    for name, body in stages.items():
        assert body["cmd"].startswith(f"python stages/{name}.py"), name
        if name == "code":
            continue
        deps = body.get("deps", [])
        assert f"data/code/{name}.json" in deps, name
        code_paths = ("src", "stages", "sandbox", "tools", "fixtures", "uv.lock")
        direct = [d for d in deps if d.startswith(code_paths)]
        assert direct == [], f"{name} names code directly: {direct}"


@pytest.mark.parametrize("stage", sorted(stage_scripts()))
def test_every_module_a_stage_imports_is_in_its_digest(
    stage: str, digested: dict[str, set[str]]
) -> None:
    imported = script_modules(stage_scripts()[stage])
    missing = {name: file for name, file in imported.items() if file not in digested[stage]}
    assert imported and not missing, f"{stage} imports modules its digest lacks: {missing}"
    assert f"stages/{stage}.py" in digested[stage]


def test_files_packaged_beside_an_imported_package_are_in_its_digest(
    digested: dict[str, set[str]],
) -> None:
    """The report's SQL and page templates are read with importlib.resources, not imported."""
    assert "assay.report" in script_modules(stage_scripts()["report"])
    packaged = {
        p.relative_to(ROOT).as_posix()
        for folder in ("queries", "templates")
        for p in (ROOT / "src" / "assay" / "report" / folder).iterdir()
    }
    assert packaged and packaged <= digested["report"]
    assert not any(p.startswith("src/assay/report/") for p in digested["extract"])


def test_what_a_module_reads_reaches_every_stage_that_imports_it(
    digested: dict[str, set[str]],
) -> None:
    declaration = load_declaration(ROOT / "pipeline" / "code.toml")
    for module, paths in declaration.modules.items():
        importers = [s for s, script in stage_scripts().items() if module in script_modules(script)]
        assert importers, f"no stage imports {module}: its entry does nothing"
        for stage in importers:
            for path in paths:
                inside = [f for f in digested[stage] if f == path or f.startswith(path + "/")]
                assert inside, (module, stage, path)


def test_the_code_stage_depends_on_every_file_a_digest_holds(
    digested: dict[str, set[str]],
) -> None:
    """Otherwise an edit of that file would not re-run the code stage at all."""
    code_deps = [Path(d) for d in stage_bodies()["code"]["deps"]]
    for stage, files in digested.items():
        for path in map(Path, files):
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
    (tmp_path / "code.toml").write_text("[stages]\na = []\n", encoding="utf-8")
    return tmp_path


def test_an_edit_rewrites_exactly_the_digests_of_the_stages_that_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    out = tmp_path / "data" / "code"
    paths = {
        "a": [
            Path("stages/a.py"),
            Path("lib/shared.py"),
            Path("lib/__pycache__/shared.cpython-311.pyc"),
        ],
        "b": [Path("stages/b.py"), Path("lib")],
    }
    assert publish(paths, out) == ["a", "b"]
    a = json.loads((out / "a.json").read_text(encoding="utf-8"))
    b = json.loads((out / "b.json").read_text(encoding="utf-8"))
    assert a["stage"] == "a" and sorted(a["files"]) == ["lib/shared.py", "stages/a.py"]
    assert sorted(b["files"]) == ["lib/only_b.py", "lib/shared.py", "stages/b.py"], ".dvcignore"
    assert publish(paths, out) == []

    (tmp_path / "lib" / "only_b.py").write_text("only b, edited\n", encoding="utf-8")
    stamp = (out / "a.json").stat().st_mtime_ns
    assert publish(paths, out) == ["b"]
    assert (out / "a.json").stat().st_mtime_ns == stamp
    (tmp_path / "lib" / "shared.py").write_text("shared, edited\n", encoding="utf-8")
    assert publish(paths, out) == ["a", "b"]
    (tmp_path / "lib" / "new.py").write_text("new\n", encoding="utf-8")
    assert publish(paths, out) == ["b"], "a new file in a folder"

    assert publish({"a": paths["a"]}, out) == []
    assert sorted(os.listdir(out)) == ["a.json"], "the digest of a stage no longer declared"


@pytest.mark.parametrize("case", MALFORMED, ids=[case["name"] for case in MALFORMED])
def test_a_bad_declaration_is_one_line_naming_the_key_and_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: dict[str, str]
) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    (tmp_path / "code.toml").write_text(case["text"] + "\n", encoding="utf-8")
    with pytest.raises(CodeDeclarationError) as raised:
        load_declaration(Path("code.toml"))
    assert str(raised.value).startswith(case["message"])
    assert "\n" not in str(raised.value)


def test_a_declared_module_or_stage_that_is_not_there_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from assay.pipeline.code import Declaration

    monkeypatch.chdir(ROOT)
    graph = stage_code.build_graph()
    with pytest.raises(CodeDeclarationError, match="modules.assay.gone: no such module"):
        stage_paths(Declaration(modules={"assay.gone": ()}, stages={}), graph)
    with pytest.raises(CodeDeclarationError, match="stages.nothing: stages/nothing.py does not"):
        stage_paths(Declaration(modules={}, stages={"nothing": ()}), graph)

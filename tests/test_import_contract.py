"""The import contract of ``src/assay``, checked on the code's own imports (grimp):

- no import cycles, not even through a function-level or ``TYPE_CHECKING`` import;
- layers, top to bottom: ``assay.cli`` → ``assay.commands`` → ``assay.pipeline`` (one module
  per stage) → the library → ``assay.evidence`` → the foundation. A layer imports only layers
  below it;
- inside the library: ``assay.core`` imports nothing else of assay; the science
  (``assay.science``, ``assay.structure``) knows nothing of spending, providers, reports or
  exports; the ledger knows no provider, and the paid path below the stages no stage;
- ``assay.evidence`` is the only module that spells the ``data/`` layout: no other module names
  the folder or one of its stage folders in a string.

A failure names the offending import (file and line) or string.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import grimp
import pytest

from tests.dvc_stages import stage_bodies

SRC = Path(__file__).resolve().parents[1] / "src" / "assay"

FOUNDATION = frozenset(
    {
        "assay",
        "assay.core.records",
        "assay.core.digest",
        "assay.core.errors",
        "assay.core.tables",
        "assay.fixtures.model",
        "assay.providers",
        "assay.providers.base",
        "assay.local",
        "assay.local.settings",
    }
)
"""What ``assay.evidence`` may import: vocabularies, canonical JSON, the error tree, Parquet I/O,
and the two records of committed inputs its artefacts embed (the scenario, the model profile
with a local model's ``local:`` section)."""

TOP = ("assay.cli", "assay.commands", "assay.pipeline")
"""The layers above the library, highest first."""

CORE = "assay.core"
"""The foundation every package stands on."""

SCIENCE = ("assay.science", "assay.structure")
"""What decides a verdict: prompts, extraction, the gate, the structural evaluator, the tests."""

NOT_SCIENCE = ("assay.paid", "assay.providers", "assay.local", "assay.report", "assay.export")
"""What the science must not depend on: how answers were bought, and how results are shown."""


def _inside(module: str, packages: tuple[str, ...] | str) -> bool:
    packages = (packages,) if isinstance(packages, str) else packages
    return any(module == p or module.startswith(p + ".") for p in packages)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("assay", cache_dir=None)


def _where(graph: grimp.ImportGraph, importer: str, imported: str) -> str:
    lines = graph.get_import_details(importer=importer, imported=imported)
    return ", ".join(f"{d['importer']}:{d['line_number']} {d['line_contents']}" for d in lines)


def strongly_connected(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import cycles: every strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(module: str) -> None:  # Tarjan; the graph is ~200 modules deep at most
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return components


def test_no_import_cycles(graph: grimp.ImportGraph) -> None:
    cycles = strongly_connected(graph)
    details = [
        _where(graph, a, b)
        for component in cycles
        for a in component
        for b in component
        if graph.direct_import_exists(importer=a, imported=b)
    ]
    assert not cycles, "import cycles:\n" + "\n".join(details)


def test_evidence_imports_only_the_foundation(graph: grimp.ImportGraph) -> None:
    evidence = {
        m for m in graph.modules if m == "assay.evidence" or m.startswith("assay.evidence.")
    }
    below = evidence | FOUNDATION
    wrong = [
        _where(graph, module, imported)
        for module in sorted(evidence | FOUNDATION)
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if imported not in below
    ]
    assert not wrong, "assay.evidence must sit at the bottom:\n" + "\n".join(wrong)


def _layer(module: str) -> int:
    """0 for assay.cli, 1 for commands, 2 for pipeline, 3 for everything else."""
    for rank, top in enumerate(TOP):
        if module == top or module.startswith(top + "."):
            return rank
    return len(TOP)


def test_no_layer_imports_a_layer_above_it(graph: grimp.ImportGraph) -> None:
    upward = [
        _where(graph, module, imported)
        for module in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if _layer(imported) < _layer(module)
    ]
    assert not upward, "imports of a higher layer:\n" + "\n".join(upward)


PAID_PATH_LIBRARY = (
    "assay.paid.ledger",
    "assay.paid.ledger_records",
    "assay.paid.execute",
    "assay.paid.seal",
)
"""The paid path below the stages: the ledger, the execute loop, the seal. The stages above
(``assay.pipeline.admission`` → ``assay.pipeline.sending`` → ``assay.pipeline.collect``) sit in
the pipeline layer."""

LEDGER_BELOW = ("assay.paid.ledger", "assay.paid.ledger_records")
"""The ledger keeps what a provider reported without knowing providers: replay reads it."""


def test_the_ledger_imports_no_provider(graph: grimp.ImportGraph) -> None:
    wrong = [
        _where(graph, module, imported)
        for module in LEDGER_BELOW
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if imported == "assay.providers" or imported.startswith("assay.providers.")
    ]
    assert not wrong, "the ledger must not import providers:\n" + "\n".join(wrong)


def test_the_send_path_is_layered(graph: grimp.ImportGraph) -> None:
    """Admission, sending and collecting import downwards only: sending uses admission,
    collecting uses admission, and none of the paid path below the stages imports them."""
    stages = ("assay.pipeline.admission", "assay.pipeline.sending", "assay.pipeline.collect")
    assert all(module in graph.modules for module in (*stages, *PAID_PATH_LIBRARY))
    upward = [
        _where(graph, module, imported)
        for module in PAID_PATH_LIBRARY
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if _layer(imported) < _layer(module)
    ]
    assert not upward, "\n".join(upward)
    assert not graph.direct_import_exists(
        importer="assay.pipeline.admission", imported="assay.pipeline.sending"
    )
    assert not graph.direct_import_exists(
        importer="assay.pipeline.sending", imported="assay.pipeline.collect"
    )


def stage_folders() -> set[str]:
    """The top-level folders under ``data/`` that dvc.yaml declares as stage outputs."""
    folders = set()
    for body in stage_bodies().values():
        for out in body.get("outs", []):
            path = next(iter(out)) if isinstance(out, dict) else out
            if path.startswith("data/"):
                folders.add(path.split("/")[1])
    return folders


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            ids.add(id(first.value))  # module, class and function docstrings
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            ids.add(id(node.value))  # attribute docstrings
    return ids


def _path_operands(tree: ast.AST) -> set[int]:
    """Strings used as paths: an argument of ``Path(…)`` or an operand of ``/``."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "Path":
            ids.update(id(arg) for arg in node.args)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            ids.update((id(node.left), id(node.right)))
    return ids


def data_layout_spellings(source: str, folders: set[str]) -> Iterator[tuple[int, str]]:
    """(line, text) of every string that spells the data layout: ``"data/…"`` (also at the start
    of an f-string), ``"data"`` used as a path, or a stage folder joined onto a path that names
    the data folder (``data / "plan"``, ``evidence.DATA / "export"``). A JSON key ``"data"`` or
    a bundle's own ``report/`` folder is not the layout."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    as_path = _path_operands(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            if isinstance(first, ast.Constant) and str(first.value).startswith("data/"):
                skip.add(id(first))
                yield node.lineno, ast.unparse(node)
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        ):
            if node.value.startswith("data/") or (node.value == "data" and id(node) in as_path):
                yield node.lineno, repr(node.value)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            right = node.right
            if (
                isinstance(right, ast.Constant)
                and right.value in folders
                and "data" in ast.unparse(node.left).lower()
            ):
                yield node.lineno, ast.unparse(node)


def test_only_evidence_spells_the_data_layout() -> None:
    folders = stage_folders()
    assert {"plan", "execute", "report", "code"} <= folders
    found = [
        f"{path.relative_to(SRC.parent)}:{line}: {text}"
        for path in sorted(SRC.rglob("*.py"))
        if "evidence" not in path.relative_to(SRC).parts
        for line, text in data_layout_spellings(path.read_text(encoding="utf-8"), folders)
    ]
    assert not found, "spell these through assay.evidence:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "spelled"),
    [
        ('p = Path("data")', True),
        ('p = "data/plan/r1/plan.json"', True),
        ('p = f"data/plan/{run}/plan.json"', True),
        ('p = data / "plan" / run', True),
        ('p = evidence.DATA / "plan"', True),
        ('p = bundle / "plan"', False),
        ('p = data / "plans"', False),
        ('"""Writes data/plan/."""', False),
        ('x = payload.get("data")', False),
        ('x = root / "data"', True),
    ],
)
def test_the_spelling_check_sees_what_it_should(source: str, spelled: bool) -> None:
    assert bool(list(data_layout_spellings(source, {"plan"}))) is spelled


def test_grimp_sees_every_package() -> None:
    """A folder without ``__init__.py`` is a namespace package grimp leaves out of the graph."""
    missing = [
        str(folder.relative_to(SRC.parent))
        for folder in SRC.rglob("*")
        if folder.is_dir()
        and any(folder.glob("*.py"))
        and not (folder / "__init__.py").exists()
        and "__pycache__" not in folder.parts
    ]
    assert not missing, missing


def test_core_imports_nothing_else_of_assay(graph: grimp.ImportGraph) -> None:
    assert f"{CORE}.records" in graph.modules
    wrong = [
        _where(graph, module, imported)
        for module in sorted(m for m in graph.modules if _inside(m, CORE))
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if not _inside(imported, CORE)
    ]
    assert not wrong, "assay.core must sit below every other package:\n" + "\n".join(wrong)


def test_the_science_knows_nothing_of_spending_or_showing(graph: grimp.ImportGraph) -> None:
    assert "assay.science.extract" in graph.modules and "assay.paid.execute" in graph.modules
    wrong = [
        _where(graph, module, imported)
        for module in sorted(m for m in graph.modules if _inside(m, SCIENCE))
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if _inside(imported, NOT_SCIENCE)
    ]
    assert not wrong, "the science imports the paid path or the reports:\n" + "\n".join(wrong)


INSPECT = ("assay.inspect", "assay.providers.inspect_log")
"""The modules that may import ``inspect_ai`` at module level: importing it takes seconds, so
every other module imports it (or one of these) only where it is used, and the stages, the
commands and ``assay --help`` that never read an Inspect log pay nothing for it."""


def module_level_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, module) of every import that runs when the module is imported: at its top level,
    or under a top-level ``if``/``try``/``with`` (not ``if TYPE_CHECKING``)."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.lineno, node.module
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            pending += node.body + node.orelse
        elif isinstance(node, ast.Try):
            pending += node.body + node.orelse + node.finalbody
            pending += [statement for handler in node.handlers for statement in handler.body]
        elif isinstance(node, ast.With):
            pending += node.body


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_only_the_inspect_modules_import_inspect_ai_when_imported() -> None:
    checked, found = set(), []
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        checked.add(module)
        if _inside(module, INSPECT):
            continue
        for line, imported in module_level_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if _inside(imported, "inspect_ai") or _inside(imported, INSPECT):
                found.append(f"{path.relative_to(SRC.parent)}:{line}: imports {imported}")
    assert {"assay.providers.factory", "assay.pipeline.plan", "assay.cli"} <= checked
    assert not found, "import these where they are used:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import inspect_ai", ["inspect_ai"]),
        ("from inspect_ai.log import read_eval_log", ["inspect_ai.log"]),
        ("try:\n    import inspect_ai\nexcept ImportError:\n    pass", ["inspect_ai"]),
        ("if TYPE_CHECKING:\n    from inspect_ai.log import EvalLog", []),
        ("def f():\n    import inspect_ai", []),
        ("from . import sibling", []),
    ],
)
def test_the_module_level_import_reader_sees_what_it_should(source: str, found: list[str]) -> None:
    assert [name for _, name in module_level_imports(ast.parse(source))] == found

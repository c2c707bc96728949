"""Name resolution inside a candidate: what each called expression refers to.

A call's callee resolves through the candidate's imports (module-level and function-local) to a
dotted path: ``r.sub`` after ``import re as r`` is ``re.sub``; ``s`` after
``from re import sub as s`` is ``re.sub``. A name the candidate does not bind is *global*: the
target module or the builtins bind it, and it resolves to itself (``helper`` → ``helper``,
``str.strip`` → ``str.strip``). A name bound inside ``implement`` by anything but an import is
*local* and an expression that is not a name chain (``x.strip()`` on a call result, a literal)
is an *object*: neither resolves to a path.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from assay.science.gate import bound_name, imported_module

Origin = Literal["import", "global", "local", "object"]


@dataclass(frozen=True, slots=True)
class ImportBinding:
    """What an import binds a name to: a module, or a symbol of a module."""

    module: str
    symbol: str | None

    @property
    def path(self) -> str:
        return self.module if self.symbol is None else f"{self.module}.{self.symbol}"


@dataclass(frozen=True, slots=True)
class LocalBinding:
    """A binding of a name inside ``implement`` (its own scope or a nested one)."""

    name: str
    kind: Literal["parameter", "assignment", "exception", "definition", "pattern", "import"]
    binding: ImportBinding | None = None


@dataclass(frozen=True, slots=True)
class Callee:
    """A resolved call target."""

    origin: Origin
    path: str | None
    """Dotted path for ``import`` and ``global`` origins, else ``None``."""
    terminal: str | None
    """The called name: the last component of the path, or the attribute called on an object."""
    is_attribute: bool


def import_bindings(statements: Iterable[ast.stmt]) -> dict[str, ImportBinding]:
    """Names bound by the import statements among ``statements`` (later imports win)."""
    bindings: dict[str, ImportBinding] = {}
    for statement in statements:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                module = alias.name if alias.asname else alias.name.split(".")[0]
                bindings[bound_name(alias)] = ImportBinding(module=module, symbol=None)
        elif isinstance(statement, ast.ImportFrom):
            module = imported_module(statement)
            for alias in statement.names:
                if alias.name != "*":
                    bindings[bound_name(alias)] = ImportBinding(module=module, symbol=alias.name)
    return bindings


def local_bindings(function: ast.FunctionDef, nodes: Iterable[ast.AST]) -> list[LocalBinding]:
    """Every binding inside the function's body and signature, nested scopes included;
    ``nodes`` are the function's nodes (itself included)."""
    found: list[LocalBinding] = []
    for node in nodes:
        if node is function:
            continue
        if isinstance(node, ast.arg):
            found.append(LocalBinding(node.arg, "parameter"))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.append(LocalBinding(node.id, "assignment"))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.append(LocalBinding(node.name, "exception"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(LocalBinding(node.name, "definition"))
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            found.append(LocalBinding(node.name, "pattern"))
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.append(LocalBinding(node.rest, "pattern"))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, binding in import_bindings([node]).items():
                found.append(LocalBinding(name, "import", binding))
    return found


@dataclass(frozen=True, slots=True)
class Scope:
    """The names visible to code inside ``implement``."""

    module_imports: dict[str, ImportBinding]
    local_imports: dict[str, ImportBinding]
    locals: frozenset[str]
    """Names bound inside ``implement`` by anything but an import."""

    def resolve_name(self, name: str) -> tuple[Origin, str | None]:
        if name in self.locals:
            return "local", None
        binding = self.local_imports.get(name) or self.module_imports.get(name)
        if binding is not None:
            return "import", binding.path
        return "global", name

    def resolve(self, expression: ast.expr) -> Callee:
        """Resolve a callee (or any referenced expression) to its origin and dotted path."""
        attributes: list[str] = []
        node = expression
        while isinstance(node, ast.Attribute):
            attributes.append(node.attr)
            node = node.value
        attributes.reverse()
        is_attribute = bool(attributes)
        if not isinstance(node, ast.Name):
            terminal = attributes[-1] if attributes else None
            return Callee("object", None, terminal, is_attribute)
        origin, base = self.resolve_name(node.id)
        if base is None:
            terminal = attributes[-1] if attributes else node.id
            return Callee(origin, None, terminal, is_attribute)
        path = ".".join([base, *attributes])
        return Callee(origin, path, path.rsplit(".", 1)[-1], is_attribute)


def build_scope(tree: ast.Module, bindings: Sequence[LocalBinding]) -> Scope:
    """The scope of ``implement``: module imports, function-local imports, other local names."""
    others = frozenset(b.name for b in bindings if b.kind != "import")
    local_imports = {
        b.name: b.binding
        for b in bindings
        if b.kind == "import" and b.binding is not None and b.name not in others
    }
    return Scope(
        module_imports=import_bindings(tree.body), local_imports=local_imports, locals=others
    )

"""The target module printed again with ``implement`` appended, as chat models often answer
(in one real 1.5B coder's chat answers, 17 of 24: ``/work/shared/reviews/real-answers.md``).

``reprinted`` turns the code of an answer into the whole target file the prompt showed with the
code appended: verbatim (the file's own text, then the code), or reformatted (the file's tree
printed again with other quotes and blank lines and without its comments, the code's imports
joined to the file's import block). With ``change`` the reprint also changes one definition of
the module: a dropped annotation, a renamed parameter, another constant (the deviation
``module-changed``). A target the stand-in cannot parse is never printed again.
"""

from __future__ import annotations

import ast

from assay.providers.realistic.code import leading_imports, rename, render
from assay.providers.realistic.draws import Draws

REPRINT = 0.2
"""How often an answer prints the target module again (any deviation but the reply's own)."""
VERBATIM = 0.5
"""Of those, how often the module's own text is kept (else it is printed from its tree)."""


def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _functions(module: ast.Module) -> list[ast.FunctionDef]:
    return [
        node
        for node in module.body
        if isinstance(node, ast.FunctionDef) and node.name != "implement"
    ]


def _change_function(function: ast.FunctionDef, draws: Draws) -> None:
    """One change a model makes while copying a function: an annotation dropped, the first
    parameter renamed, or a return annotation added."""
    arguments = function.args.posonlyargs + function.args.args
    annotated = [a for a in arguments if a.annotation is not None]
    if function.returns is not None and (not annotated or draws.chance("drop-returns", 0.5)):
        function.returns = None
    elif annotated:
        draws.pick("dropped-annotation", annotated).annotation = None
    elif arguments:
        rename(function, {arguments[0].arg: f"{arguments[0].arg}_value"})
    else:
        function.returns = ast.Name(id="object", ctx=ast.Load())


def _change_constant(module: ast.Module, draws: Draws) -> bool:
    assigned = [n for n in module.body if isinstance(n, ast.Assign | ast.AnnAssign)]
    if not assigned:
        return False
    node = draws.pick("changed-constant", assigned)
    if node.value is None:
        return False
    node.value = ast.Tuple(elts=[node.value], ctx=ast.Load())
    return True


def change_module(module: ast.Module, draws: Draws) -> bool:
    """Change one definition of the module in place; False when it defines nothing."""
    functions = _functions(module)
    if not functions or not draws.chance("change-function", 0.8):
        if _change_constant(module, draws):
            return True
        if not functions:
            return False
    _change_function(draws.pick("changed-function", functions), draws)
    return True


def _merged(target: ast.Module, code: ast.Module) -> ast.Module:
    """The target's statements, the code's new imports in its import block, then the code."""
    merged = ast.Module(body=list(target.body), type_ignores=[])
    docstring = 0
    first = merged.body[0] if merged.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        docstring = 1
    for node in leading_imports(code):
        text = ast.unparse(node)
        if all(ast.unparse(existing) != text for existing in merged.body):
            rest = ast.Module(body=merged.body[docstring:], type_ignores=[])
            merged.body.insert(docstring + len(leading_imports(rest)), node)
    merged.body += code.body[len(leading_imports(code)) :]
    return merged


def reprinted(target: str, code: str, draws: Draws, *, change: bool = False) -> str:
    """``code`` appended to the target module printed again (see the module docstring); the
    code alone when the target does not parse or (``change``) holds nothing to change."""
    tree = _parsed(target)
    if tree is None or not tree.body:
        return code
    parsed = _parsed(code)
    if change:
        if parsed is None or not change_module(tree, draws):
            return code
        return render(_merged(tree, parsed), draws)
    if parsed is None or draws.chance("reprint-verbatim", VERBATIM):
        return target.rstrip("\n") + "\n\n\n" + code.lstrip("\n")
    return render(_merged(tree, parsed), draws)

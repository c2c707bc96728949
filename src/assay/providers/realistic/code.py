"""A candidate module as the realistic stand-in edits it: imports, extra statements and the
``implement`` function, parsed from a reference solution and printed back as source.

Every edit here keeps what the code does (renamed locals, a result variable, a docstring,
another layout of quotes and blank lines): the deviations that change it live in
:mod:`assay.providers.realistic.deviations`.
"""

from __future__ import annotations

import ast
import builtins
import io
import re
import tokenize
from collections.abc import Iterator

from assay.providers.realistic.draws import Draws

IMPLEMENT = "implement"
PARAMETER_NAMES = ("value", "raw", "data", "item", "payload", "source", "arg", "entry", "obj")
LOCAL_NAMES = ("result", "out", "res", "tmp", "current", "acc", "text", "cleaned", "parts",
               "pieces", "buf", "outcome", "computed", "converted", "formatted", "answer")  # fmt: skip
RENAME_PARAMETER = 0.5
RENAME_LOCAL = 0.35
RESULT_VARIABLE = 0.3
DOCSTRING = 0.15
REFORMAT = 0.5
ONE_BLANK_LINE = 0.3
DOUBLE_QUOTES = 0.6


def parse(source: str) -> ast.Module:
    return ast.parse(source)


def implement_of(module: ast.Module) -> ast.FunctionDef:
    return next(
        node for node in module.body if isinstance(node, ast.FunctionDef) and node.name == IMPLEMENT
    )


def parameter(function: ast.FunctionDef) -> str:
    arguments = function.args.posonlyargs + function.args.args
    return arguments[0].arg if arguments else "value"


def leading_imports(module: ast.Module) -> list[ast.stmt]:
    imports: list[ast.stmt] = []
    for statement in module.body:
        if not isinstance(statement, ast.Import | ast.ImportFrom):
            break
        imports.append(statement)
    return imports


def add_import(module: ast.Module, statement: ast.stmt) -> None:
    """Add the import after the leading ones, unless the module holds it already."""
    text = ast.unparse(statement)
    imports = leading_imports(module)
    if all(ast.unparse(existing) != text for existing in imports):
        module.body.insert(len(imports), statement)


def statement(source: str) -> ast.stmt:
    return ast.parse(source).body[0]


def _binding(node: ast.AST) -> str | None:
    """The name a node binds other than as a plain variable (import, definition, handler,
    pattern), if any."""
    if isinstance(node, ast.alias):
        return (node.asname or node.name).split(".")[0]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return node.name
    if isinstance(node, ast.MatchMapping):
        return node.rest
    return None


def names_in_use(module: ast.Module) -> set[str]:
    """Every identifier the module binds or reads, and every builtin: a new name avoids them."""
    used = set(dir(builtins))
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.arg):
            used.add(node.arg)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            used.update(node.names)
        elif (name := _binding(node)) is not None:
            used.add(name)
    return used


def fresh_name(module: ast.Module, draws: Draws, key: str, pool: tuple[str, ...]) -> str:
    """A name from ``pool`` (or a numbered one) that the module does not use yet."""
    used = names_in_use(module)
    start = int(draws.uniform(key) * len(pool))
    for offset in range(len(pool)):
        name = pool[(start + offset) % len(pool)]
        if name not in used:
            return name
    number = 2
    while f"{pool[start]}{number}" in used:
        number += 1
    return f"{pool[start]}{number}"


def renamable(function: ast.FunctionDef) -> list[str]:
    """The parameters and plain local variables of ``function``, in order of appearance.

    Names bound any other way (imports, ``except … as``, ``global``, patterns) stay as they
    are, and so does every name read but never bound here (globals, builtins, the helper)."""
    arguments = function.args
    every = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
    every += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    kept: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            every.append(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            kept.update(node.names)
        elif node is not function and (name := _binding(node)) is not None:
            kept.add(name)
    return [name for name in dict.fromkeys(every) if name not in kept]


def rename(function: ast.FunctionDef, mapping: dict[str, str]) -> None:
    """Rename parameters and local variables of ``function`` in place."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in mapping:
            node.id = mapping[node.id]
        elif isinstance(node, ast.arg) and node.arg in mapping:
            node.arg = mapping[node.arg]


def instruction_parameter(instruction: str) -> str | None:
    """The parameter name the task's instruction gives ``implement``, if it names one."""
    named = re.search(r"`implement\((\w+)\)`", instruction)
    return named.group(1) if named else None


def rename_locals(module: ast.Module, draws: Draws, instruction: str) -> bool:
    """Rename the parameter (often to the name the instruction uses) and some locals."""
    function = implement_of(module)
    mapping: dict[str, str] = {}
    used = names_in_use(module)
    names = renamable(function)
    first = parameter(function)
    if first in names and draws.chance("rename-parameter", RENAME_PARAMETER):
        hinted = instruction_parameter(instruction)
        pool = ((hinted,) if hinted and draws.chance("hinted", 0.6) else ()) + PARAMETER_NAMES
        choice = next((name for name in pool if name not in used and name != first), None)
        if choice:
            mapping[first] = choice
            used.add(choice)
    for index, name in enumerate(n for n in names if n != first):
        if not draws.chance(f"rename-local-{index}", RENAME_LOCAL):
            continue
        start = int(draws.uniform(f"local-name-{index}") * len(LOCAL_NAMES))
        pool = LOCAL_NAMES[start:] + LOCAL_NAMES[:start]
        choice = next((n for n in pool if n not in used), None)
        if choice:
            mapping[name] = choice
            used.add(choice)
    rename(function, mapping)
    return bool(mapping)


def result_variable(module: ast.Module, draws: Draws) -> bool:
    """``return <expression>`` becomes ``<name> = <expression>`` then ``return <name>``."""
    function = implement_of(module)
    last = function.body[-1]
    if not isinstance(last, ast.Return) or last.value is None or isinstance(last.value, ast.Name):
        return False
    name = fresh_name(module, draws, "result-name", ("result", "out", "formatted", "res"))
    assign = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=last.value)
    function.body[-1:] = [assign, ast.Return(value=ast.Name(id=name, ctx=ast.Load()))]
    return True


def summary(instruction: str, draws: Draws) -> str:
    """A one-line docstring a model would write from the task's instruction."""
    returned = re.search(r"\breturns? ((?:[^.`]|`[^`]*`)+)\.", instruction)
    if returned:
        verb = draws.pick("docstring-verb", ("Return", "Returns", "Compute and return"))
        return f"{verb} {returned.group(1).strip()}."
    first = instruction.split(". ")[0].strip().rstrip(".")
    return f"{first[:1].upper()}{first[1:]}." if first else "Implement the requested behaviour."


def add_docstring(module: ast.Module, instruction: str, draws: Draws) -> None:
    function = implement_of(module)
    function.body.insert(0, ast.Expr(value=ast.Constant(value=summary(instruction, draws))))


def vary(module: ast.Module, draws: Draws, instruction: str) -> bool:
    """The edits that keep behaviour: renames, a result variable, a docstring. True when any
    was made (the module must then be printed from its tree)."""
    changed = rename_locals(module, draws, instruction)
    if draws.chance("result-variable", RESULT_VARIABLE):
        changed = result_variable(module, draws) or changed
    if draws.chance("docstring", DOCSTRING):
        add_docstring(module, instruction, draws)
        changed = True
    return changed


def _top_level(statements: list[ast.stmt]) -> Iterator[tuple[ast.stmt, bool]]:
    """Each statement and whether it opens a new section (blank lines before it)."""
    previous: ast.stmt | None = None
    for node in statements:
        is_import = isinstance(node, ast.Import | ast.ImportFrom)
        was_import = isinstance(previous, ast.Import | ast.ImportFrom)
        yield node, previous is not None and not (is_import and was_import)
        previous = node


def render(module: ast.Module, draws: Draws) -> str:
    """The module printed from its tree, laid out the way one model or another would."""
    # joined by newlines: "" leaves one blank line, "\n" two
    gap = "" if draws.chance("one-blank-line", ONE_BLANK_LINE) else "\n"
    ast.fix_missing_locations(module)
    lines: list[str] = []
    for node, section in _top_level(module.body):
        if section:
            opens_definition = isinstance(node, ast.FunctionDef | ast.ClassDef)
            lines.append(gap if opens_definition else "")
        lines.append(ast.unparse(node))
    source = "\n".join(lines) + "\n"
    if draws.chance("double-quotes", DOUBLE_QUOTES):
        source = double_quoted(source)
    return source


def double_quoted(source: str) -> str:
    """Plain single-quoted strings written with double quotes (the usual formatter style)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    lines = source.splitlines(keepends=True)
    for token in reversed(tokens):
        text = token.string
        if token.type != tokenize.STRING or token.start[0] != token.end[0]:
            continue
        prefix = text[: len(text) - len(text.lstrip("rRbBuU"))]
        body = text[len(prefix) :]
        if not (body.startswith("'") and not body.startswith("'''")):
            continue
        if '"' in body or "\\" in body:
            continue
        row, start = token.start
        _, end = token.end
        line = lines[row - 1]
        lines[row - 1] = line[:start] + prefix + '"' + body[1:-1] + '"' + line[end:]
    return "".join(lines)


COMMENT = 0.45
COMMENT_PARTS = {
    "helper": (
        ("Delegate to", "Reuse", "Call", "Lean on"),
        ("{helper}", "the existing {helper}", "the shared {helper} helper"),
        ("so the rules live in one place.", "to keep the behaviour consistent.",
         "rather than repeating its logic.", "(it already does exactly this)."),
    ),
    "inline": (
        ("Compute", "Build", "Work out", "Derive"),
        ("the result", "the value", "the output"),
        ("inline, like the neighbouring functions.", "directly.", "step by step.",
         "the same way as the rest of {target}."),
    ),
    "other": (
        ("New function", "Added", "Entry point", "Implementation"),
        ("for the new feature", "for this task", "as requested"),
        ("(appended to {target}).", "- see the task description.", ".", "; no new imports."),
    ),
}  # fmt: skip


def comment_text(approach: str, draws: Draws) -> str:
    """A comment line composed from a few phrasings, as models word them differently."""
    words = [draws.pick(f"comment-{i}", part) for i, part in enumerate(COMMENT_PARTS[approach])]
    return "# " + " ".join(words).replace(" .", ".").replace(" (", " (").replace(" ;", ";")


def add_comment(source: str, comment: str, inside: bool) -> str:
    """``comment`` as the first line of ``implement``'s body (``inside``, when its signature
    ends on the ``def`` line) or on the line above its ``def``."""
    lines = source.split("\n")
    index = next(
        (i for i, line in enumerate(lines) if re.match(r"(async\s+)?def implement\b", line)), None
    )
    if index is None:
        return source
    if inside and lines[index].rstrip().endswith(":") and index + 1 < len(lines):
        body = lines[index + 1]
        indent = body[: len(body) - len(body.lstrip())] or "    "
        lines.insert(index + 1, indent + comment)
    else:
        lines.insert(index, comment)
    return "\n".join(lines)

"""How a realistic answer departs from a clean reference solution, one function per deviation.

Each deviation is built to end in one known place of the pipeline (``tests/providers/cases/
realistic_deviations.yaml`` holds the table the tests check on every subject):

==================  ===============================================  ========================
deviation           what the model wrote                             where it ends
==================  ===============================================  ========================
mixed               the helper, and the logic written out again in   mixed, correct
                    an ``except`` fallback
helper-in-branch    the helper under a defensive ``if value:``,      ambiguous, correct
                    ``None`` otherwise
stub                ``raise NotImplementedError`` with a TODO        ambiguous, exception
extra-function      the logic in a private function ``implement``    rejected
                    calls                                            (extra-definition)
module-statement    ``__all__`` or a module-level logger             rejected
decorator           ``@functools.lru_cache`` on ``implement``        rejected (decorated)
helper-import       imports the helper from the wrong place          rejected (helper-replaced)
syntax-error        a missing colon or an extra parenthesis          rejected (syntax-error)
truncated           the reply cut off mid-expression (token limit)   rejected (syntax-error)
two-versions        two different ``implement`` blocks               ambiguous-extraction
diff-only           the change shown as a ``diff`` block only        no-code
no-return           the result computed but never returned           incorrect (wrong-value)
tuple-return        ``return result,`` (a one-element tuple)         incorrect (wrong-type)
name-typo           a misspelt variable in the last statement        incorrect (exception)
slow                ``time.sleep`` past the candidate deadline       incorrect (timeout)
debug-loop          a debug ``print`` in a loop that never ends      incorrect (output-flood)
memory-hog          a lookup table far larger than the memory cap    incorrect (abnormal-exit)
module-changed      the target module printed again with one of its  module-changed (missing
                    definitions changed, ``implement`` appended      evidence)
==================  ===============================================  ========================

The deviations that do not rewrite the function (``no-return`` to ``memory-hog``, and the
rejected ones) keep the verdict of the answer they start from: reused or duplicated, as the
arm's convention decided. ``truncated``, ``two-versions`` and ``diff-only`` shape the reply,
not the code (:mod:`assay.providers.realistic.reply`); ``module-changed`` prints the target
module again around the code (:mod:`assay.providers.realistic.reprint`), which any other answer
does now and then unchanged.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable
from dataclasses import dataclass

from assay.providers.base import Deviation
from assay.providers.realistic.code import (
    add_import,
    fresh_name,
    implement_of,
    leading_imports,
    names_in_use,
    parameter,
    parse,
    renamable,
    rename,
    statement,
)
from assay.providers.realistic.draws import Draws


@dataclass(frozen=True)
class Task:
    """What the stand-in knows of the task: the prompt's instruction and target file, and its
    answer book's entry (helper, its module and the two reference solutions)."""

    instruction: str
    helper: str
    helper_module: str | None
    target_module: str
    """The dotted module name of the file ``implement`` is appended to."""
    target_source: str
    """That file as the prompt showed it (a reply may print it again)."""
    reused: str
    duplicated: str


def _aligned(task: Task) -> tuple[ast.Module, ast.Module, str]:
    """Both references parsed, the duplicated one's parameter named like the reused one's."""
    reused, duplicated = parse(task.reused), parse(task.duplicated)
    name = parameter(implement_of(reused))
    other = parameter(implement_of(duplicated))
    if other != name:
        if name in names_in_use(duplicated):
            rename(implement_of(reused), {name: other})
            name = other
        else:
            rename(implement_of(duplicated), {other: name})
    return reused, duplicated, name


def _joined(reused: ast.Module, duplicated: ast.Module, body: list[ast.stmt]) -> ast.Module:
    """A module of both references' imports and ``implement`` with ``body``."""
    module = ast.Module(body=[], type_ignores=[])
    for source in (reused, duplicated):
        for node in leading_imports(source):
            add_import(module, node)
    function = implement_of(reused)
    function.body = body
    module.body.append(function)
    return module


def _name(identifier: str) -> ast.Name:
    return ast.Name(id=identifier, ctx=ast.Load())


FALLBACK_ERRORS = ("Exception", "(KeyError, TypeError, ValueError)", "ValueError")


def mixed(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """The helper first, and the logic written out again as a fallback should it raise."""
    reused, duplicated, _ = _aligned(task)
    caught = draws.pick("fallback-errors", FALLBACK_ERRORS)
    attempt = ast.parse(f"try:\n    pass\nexcept {caught}:\n    pass\n").body[0]
    assert isinstance(attempt, ast.Try)
    attempt.body = implement_of(reused).body
    attempt.handlers[0].body = implement_of(duplicated).body
    return _joined(reused, duplicated, [attempt])


def helper_in_branch(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """The helper only under a defensive check, ``None`` for an empty input."""
    reused = parse(task.reused)
    function = implement_of(reused)
    name = parameter(function)
    test = draws.pick("branch-test", (name, f"{name} is not None"))
    branch = ast.parse(f"if {test}:\n    pass\n").body[0]
    assert isinstance(branch, ast.If)
    branch.body = function.body
    function.body = [branch, ast.Return(value=ast.Constant(value=None))]
    return reused


STUB_MESSAGES = (
    "TODO: confirm the expected output format",
    "fill in once the helper's contract is settled",
    "not implemented yet",
    "implement me",
)


def stub(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """A placeholder that calls neither the helper nor a primitive."""
    function = implement_of(module)
    message = draws.pick("stub-message", STUB_MESSAGES)
    function.body = [statement(f"raise NotImplementedError({message!r})")]
    return ast.Module(body=[function], type_ignores=[])


def extra_function(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """The logic moved into a private function that ``implement`` calls."""
    function = implement_of(module)
    private = copy.deepcopy(function)
    private.name = fresh_name(
        module, draws, "private-name", ("_compute", "_build", "_convert", "_render", "_derive")
    )
    arguments: list[ast.expr] = [
        _name(a.arg) for a in function.args.posonlyargs + function.args.args
    ]
    call = ast.Call(func=_name(private.name), args=arguments, keywords=[])
    function.body = [ast.Return(value=call)]
    module.body.insert(module.body.index(function), private)
    return module


def module_statement(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """``__all__``, or a module-level logger that ``implement`` writes to."""
    position = len(leading_imports(module))
    if draws.chance("logger", 0.5):
        function = implement_of(module)
        logger = fresh_name(module, draws, "logger-name", ("logger", "log", "_log", "LOGGER"))
        add_import(module, statement("import logging"))
        module.body.insert(position + 1, statement(f"{logger} = logging.getLogger(__name__)"))
        first = parameter(function)
        function.body.insert(0, statement(f"{logger}.debug('implement(%r)', {first})"))
    else:
        module.body.insert(position, statement("__all__ = ['implement']"))
    return module


DECORATORS = (
    ("import functools", "functools.lru_cache(maxsize=None)"),
    ("from functools import lru_cache", "lru_cache(maxsize=128)"),
    ("import functools", "functools.cache"),
)


def decorator(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """``implement`` memoised with a decorator."""
    imported, decoration = draws.pick("decorator", DECORATORS)
    add_import(module, statement(imported))
    implement_of(module).decorator_list = [ast.parse(decoration, mode="eval").body]
    return module


def helper_import(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """The helper imported from the wrong place: from the target module itself when it is
    defined there, relatively when it lives in another module."""
    if task.helper_module is None:
        wrong = f"from {task.target_module} import {task.helper}"
    else:
        wrong = f"from .{task.helper_module} import {task.helper}"
    module.body = [
        node
        for node in module.body
        if not (
            isinstance(node, ast.ImportFrom)
            and any((a.asname or a.name) == task.helper for a in node.names)
        )
    ]
    add_import(module, statement(wrong))
    return module


def slow(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """A pause longer than any candidate deadline before the work."""
    seconds = draws.pick("sleep-seconds", (20, 30, 60))
    add_import(module, statement("import time"))
    implement_of(module).body.insert(0, statement(f"time.sleep({seconds})"))
    return module


DEBUG_LINES = ("debug: {}", "implement called with {}", "processing {}", "DEBUG {}")


def debug_loop(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """A retry loop with a debug print whose counter is never decremented (``-`` for ``-=``)."""
    function = implement_of(module)
    counter = fresh_name(module, draws, "counter-name", ("remaining", "retries", "attempts"))
    line = draws.pick("debug-line", DEBUG_LINES).format(f"{{{parameter(function)}!r}}")
    loop = ast.parse(
        f"{counter} = 3\nwhile {counter}:\n    print(f{line!r})\n    {counter} - 1\n"
    ).body
    function.body[0:0] = loop
    return module


def memory_hog(module: ast.Module, task: Task, draws: Draws) -> ast.Module:
    """A precomputed lookup table far beyond the sandbox's memory."""
    function = implement_of(module)
    table = fresh_name(module, draws, "table-name", ("lookup", "table", "_cache", "squares"))
    shape = draws.pick(
        "table-shape", ("[i * i for i in range(10 ** 9)]", "{i: str(i) for i in range(10 ** 9)}")
    )
    function.body.insert(0, statement(f"{table} = {shape}"))
    return module


def no_return(module: ast.Module, draws: Draws) -> None:
    """The final ``return`` forgotten: the value is computed, ``None`` comes back."""
    function = implement_of(module)
    last = function.body[-1]
    if not isinstance(last, ast.Return) or last.value is None:
        return
    if isinstance(last.value, ast.Name):
        function.body[-1:] = [] if len(function.body) > 1 else [ast.Expr(value=last.value)]
        return
    name = fresh_name(module, draws, "unreturned", ("result", "out", "formatted", "res"))
    function.body[-1] = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=last.value)


def _typo(name: str, draws: Draws, used: set[str]) -> str:
    for attempt in range(8):
        position = 1 + int(draws.uniform(f"typo-{attempt}") * max(len(name) - 2, 1))
        if len(name) >= 3 and position + 1 < len(name):
            candidate = name[:position] + name[position + 1] + name[position] + name[position + 2 :]
        else:
            candidate = name + name[-1]
        if candidate != name and candidate not in used:
            return candidate
    return name + "_"


def name_typo(module: ast.Module, draws: Draws) -> None:
    """One variable of the last statement misspelt: a ``NameError`` when it runs."""
    function = implement_of(module)
    local = set(renamable(function))
    last = function.body[-1]
    loads = [n for n in ast.walk(last) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    everywhere = [
        n for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    ]
    choices = [n for n in loads if n.id in local] or loads or everywhere
    if not choices:
        return
    chosen = draws.pick("typo-name", choices)
    chosen.id = _typo(chosen.id, draws, names_in_use(module))


_RETURN_LINE = re.compile(r"^(\s+return\s.*\S)\s*$")
_DEF_LINE = re.compile(r"^(def implement\(.*\)(?:\s*->\s*[^:]+)?):\s*$", re.MULTILINE)


def tuple_return(source: str, draws: Draws) -> str:
    """``return result,``: a stray comma makes the result a one-element tuple."""
    lines = source.rstrip("\n").split("\n")
    returned = _RETURN_LINE.match(lines[-1])
    if returned:
        lines[-1] = returned.group(1) + ","
    return "\n".join(lines) + "\n"


def syntax_error(source: str, draws: Draws) -> str:
    """A missing colon after the signature, or one closing parenthesis too many."""
    lines = source.rstrip("\n").split("\n")
    returned = _RETURN_LINE.match(lines[-1])
    without_colon = _DEF_LINE.sub(r"\1", source, count=1)
    if returned and (without_colon == source or draws.chance("extra-parenthesis", 0.5)):
        lines[-1] = returned.group(1) + ")"
        return "\n".join(lines) + "\n"
    if without_colon != source:
        return without_colon
    return source.rstrip("\n") + "\n    )\n"


Shape = Callable[[ast.Module, Task, Draws], ast.Module]
Slip = Callable[[ast.Module, Draws], None]
Text = Callable[[str, Draws], str]

SHAPES: dict[Deviation, Shape] = {
    "mixed": mixed,
    "helper-in-branch": helper_in_branch,
    "stub": stub,
    "extra-function": extra_function,
    "module-statement": module_statement,
    "decorator": decorator,
    "helper-import": helper_import,
    "slow": slow,
    "debug-loop": debug_loop,
    "memory-hog": memory_hog,
}
"""Deviations that reshape the module before the edits that keep behaviour."""

SLIPS: dict[Deviation, Slip] = {"no-return": no_return, "name-typo": name_typo}
"""Deviations made after those edits, on the finished function."""

TEXTS: dict[Deviation, Text] = {"tuple-return": tuple_return, "syntax-error": syntax_error}
"""Deviations made in the printed source."""

REPLIES: frozenset[Deviation] = frozenset({"truncated", "two-versions", "diff-only"})
"""Deviations of the reply around the code (:mod:`assay.providers.realistic.reply`)."""

REPRINTS: frozenset[Deviation] = frozenset({"module-changed"})
"""Deviations of the target module printed around the code
(:mod:`assay.providers.realistic.reprint`)."""

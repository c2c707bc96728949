"""Benchmark: structural scoring speed on one core.

Generates candidate sources from the v1 fixtures' 24 reference implementations and mechanical
variants of them (an assigned result, flat and nested early-return guards, a try or with wrapper,
any-form annotations, a branch around the helper, a module docstring, a function-local import),
makes every source distinct, and scores each under the chosen evaluator version in this one
process. Prints sources per second.

    uv run python benchmarks/score_structure.py [--count 3000] [--version 7] [--repeat 3]
"""

from __future__ import annotations

import argparse
import ast
import itertools
import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from assay.fixtures.model import Task
from assay.fixtures.v1 import load_v1
from assay.structure import DEFAULT_VERSION, score

ROOT = Path(__file__).resolve().parents[1]

Variant = Callable[[ast.FunctionDef], None]


def _parameter(function: ast.FunctionDef) -> str:
    return function.args.args[0].arg if function.args.args else "value"


def _statements(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def assigned_result(function: ast.FunctionDef) -> None:
    last = function.body[-1]
    if isinstance(last, ast.Return) and last.value is not None:
        function.body[-1:] = [
            ast.Assign(targets=[ast.Name("result", ast.Store())], value=last.value, lineno=0),
            ast.Return(ast.Name("result", ast.Load())),
        ]


def flat_guard(function: ast.FunctionDef) -> None:
    name = _parameter(function)
    function.body[:0] = _statements(f"if {name} is None:\n    raise ValueError('missing')")


def nested_guard(function: ast.FunctionDef) -> None:
    name = _parameter(function)
    guard = f"if not isinstance({name}, bytes):\n    if {name} == '':\n        return {name}"
    function.body[:0] = _statements(guard)


def try_wrapper(function: ast.FunctionDef) -> None:
    wrapper = _statements("try:\n    pass\nexcept (TypeError, KeyError):\n    raise")[0]
    assert isinstance(wrapper, ast.Try)
    wrapper.body = function.body
    function.body = [wrapper]


def with_wrapper(function: ast.FunctionDef) -> None:
    wrapper = _statements("with contextlib.suppress(OverflowError):\n    pass")[0]
    assert isinstance(wrapper, ast.With)
    wrapper.body = function.body
    function.body = [wrapper, *_statements("return None")]


def annotations(function: ast.FunctionDef) -> None:
    for argument in function.args.args:
        argument.annotation = ast.parse("dict[str, object] | str", mode="eval").body
    function.returns = ast.parse("str | None", mode="eval").body


def branch(function: ast.FunctionDef) -> None:
    name = _parameter(function)
    wrapper = _statements(f"if {name} is not None:\n    pass")[0]
    assert isinstance(wrapper, ast.If)
    wrapper.body = function.body
    function.body = [wrapper, *_statements("return None")]


def local_import(function: ast.FunctionDef) -> None:
    function.body[:0] = _statements("import functools")


VARIANTS: tuple[Variant, ...] = (
    assigned_result,
    flat_guard,
    nested_guard,
    try_wrapper,
    with_wrapper,
    annotations,
    branch,
    local_import,
)


def variant_source(
    reference: str, chosen: tuple[Variant, ...], docstring: bool, serial: int
) -> str:
    tree = ast.parse(reference)
    function = next(s for s in tree.body if isinstance(s, ast.FunctionDef))
    for variant in chosen:
        variant(function)
    if with_wrapper in chosen:
        tree.body[:0] = _statements("import contextlib")
    if docstring:
        tree.body[:0] = _statements('"""Candidate."""')
    return ast.unparse(ast.fix_missing_locations(tree)) + f"\n# candidate {serial}\n"


def candidates(count: int) -> list[tuple[Task, str]]:
    scenario = load_v1(ROOT / "fixtures" / "v1")
    references = [
        (subject.task, getattr(subject.task.references, kind))
        for subject in scenario.subjects
        for kind in ("reused", "duplicated")
    ]
    combinations = [combo for size in range(3) for combo in itertools.combinations(VARIANTS, size)]
    shapes = itertools.cycle(itertools.product(references, combinations, (False, True)))
    return [
        (task, variant_source(reference, combo, docstring, serial))
        for serial, ((task, reference), combo, docstring) in zip(range(count), shapes, strict=False)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--version", type=int, default=DEFAULT_VERSION)
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; the best is reported")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sources = candidates(args.count)
    assert len({text for _, text in sources}) == len(sources), "sources must be distinct"
    best = best_cpu = float("inf")
    verdicts: Counter[str] = Counter()
    for _ in range(args.repeat):
        verdicts.clear()
        started, started_cpu = time.perf_counter(), time.process_time()
        for task, text in sources:
            result = score(
                text,
                helper=task.helper,
                helper_module=task.helper_module,
                primitives=task.primitives,
                version=args.version,
            )
            verdicts[result.verdict] += 1
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - started_cpu)
    print(f"scored {len(sources)} sources with evaluator v{args.version} on one core")
    print(f"verdicts: {dict(sorted(verdicts.items()))}")
    print(f"best of {args.repeat} (wall): {best:.3f} s, {len(sources) / best:,.0f} sources/second")
    print(
        f"best of {args.repeat} (CPU):  {best_cpu:.3f} s, {len(sources) / best_cpu:,.0f} sources/second"
    )


if __name__ == "__main__":
    main()

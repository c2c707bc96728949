"""Benchmark: the structural evaluator over every function of real code, counting exceptions.

Every function and method (``def`` and ``async def``, nested ones included) of the standard
library and of the project's installed packages (``.venv`` site-packages) becomes one
``implement`` candidate, scored as the study scores answers:

- **the candidate**: the function's own source lines (from its ``def`` line, so decorators are
  left out), dedented, with ``def <name>`` renamed ``def implement``, after the module's
  top-level import statements (so names resolve as they do in the module). Nothing else of the
  module comes along, as in an answer.
- **the helper**: a top-level function of the same module that the function calls by bare name
  (the first such call), else the module's first top-level function other than itself, else
  ``helper``; always from the target module (``helper_module=None``): the candidate reuses it
  when it calls it, as the function does in its module.
- **the primitives**: the first five distinct callees the function calls, other than the
  helper, declared as the study declares primitives: a bare name (``len``), a dotted name
  through an imported name (``os.path.join``), else a method of any object (``self.parse`` →
  ``object.parse``), so duplicated and mixed verdicts occur.

A function whose module does not parse is skipped (it is not a candidate); a function whose
cut-out source does not parse is still scored (it gets ``rejected``). Prints the sources
scored, the exceptions ``score`` raised (must be 0, with the first few named), the verdict
and reason counts per version, and sources per second.

    uv run python benchmarks/structure_corpus.py [--versions 7 8] [--limit N] [ROOT ...]
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import sysconfig
import textwrap
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from assay.structure import score

ROOT = Path(__file__).resolve().parents[1]
_DEF = re.compile(r"^(\s*(?:async\s+)?def\s+)\w+", re.MULTILINE)
PRIMITIVES_PER_CANDIDATE = 5
PROGRESS_EVERY = 10_000


@dataclass(frozen=True)
class Candidate:
    where: str
    source: str
    helper: str
    primitives: tuple[str, ...]


def _roots() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    site = sorted((ROOT / ".venv" / "lib").glob("python3*/site-packages"))
    return [stdlib, *site]


def _files(roots: list[Path]) -> Iterator[Path]:
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if "site-packages" in path.parts and root.name != "site-packages":
                continue  # the stdlib root's own site-packages is not the stdlib
            yield path


def _primitive(node: ast.expr, modules: frozenset[str]) -> str | None:
    """How to declare a callee as a primitive: a bare name (``len``), a dotted name through an
    imported module (``os.path.join``), else a method on any object (``object.parse`` for
    ``self.parse`` or ``text.strip``)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and (not parts or node.id in modules):
        return ".".join([node.id, *reversed(parts)])
    return f"object.{parts[0]}" if parts else None


def _candidates(path: Path) -> Iterator[Candidate]:
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return
    lines = text.splitlines()
    imports = "\n".join(
        "\n".join(lines[s.lineno - 1 : s.end_lineno or s.lineno])
        for s in tree.body
        if isinstance(s, (ast.Import, ast.ImportFrom))
        and not any(alias.name == "*" for alias in s.names)
    )
    top = [s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    modules = frozenset(
        alias.asname or alias.name.split(".")[0]
        for s in tree.body
        if isinstance(s, (ast.Import, ast.ImportFrom))
        for alias in s.names
    )
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        callees = [
            name
            for call in ast.walk(node)
            if isinstance(call, ast.Call) and (name := _primitive(call.func, modules)) is not None
        ]
        called_top = [c for c in callees if c in top and c != node.name]
        others = [n for n in top if n != node.name]
        helper = called_top[0] if called_top else (others[0] if others else "helper")
        primitives = tuple(dict.fromkeys(c for c in callees if c != helper))
        body = textwrap.dedent("\n".join(lines[node.lineno - 1 : node.end_lineno or node.lineno]))
        function = _DEF.sub(r"\g<1>implement", body, count=1)
        yield Candidate(
            where=f"{path}:{node.lineno}",
            source=f"{imports}\n\n\n{function}\n" if imports else f"{function}\n",
            helper=helper,
            primitives=primitives[:PRIMITIVES_PER_CANDIDATE],
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", type=Path, help="default: stdlib and .venv packages")
    parser.add_argument("--versions", nargs="+", type=int, default=[7, 8])
    parser.add_argument("--limit", type=int, default=None, help="stop after N functions")
    args = parser.parse_args()
    roots = args.roots or _roots()
    print(f"python {sys.version.split()[0]}; roots: " + ", ".join(str(r) for r in roots))
    verdicts = {v: Counter[str]() for v in args.versions}
    reasons = {v: Counter[str]() for v in args.versions}
    exceptions: list[str] = []
    changes: Counter[str] = Counter()
    files = functions = scored = 0
    longest = (0.0, "")
    elapsed = 0.0
    for path in _files(roots):
        files += 1
        for candidate in _candidates(path):
            functions += 1
            seen: dict[int, str] = {}
            for version in args.versions:
                started = time.perf_counter()
                try:
                    result = score(
                        candidate.source,
                        helper=candidate.helper,
                        helper_module=None,
                        primitives=candidate.primitives,
                        version=version,
                    )
                except Exception:  # noqa: BLE001 - what the benchmark exists to count
                    exceptions.append(f"{candidate.where} v{version}: {traceback.format_exc(-1)}")
                    continue
                finally:
                    took = time.perf_counter() - started
                    elapsed += took
                    longest = max(longest, (took, candidate.where))
                scored += 1
                verdicts[version][result.verdict] += 1
                reasons[version][result.reason] += 1
                seen[version] = f"{result.verdict} {result.reason}"
            first, *later = [seen[v] for v in args.versions if v in seen]
            changes.update(f"{first} -> {other}" for other in later if other != first)
            if functions % PROGRESS_EVERY == 0:
                print(f"... {functions} functions, {len(exceptions)} exceptions, "
                      f"{scored / elapsed:.0f} sources/s, at {path}", flush=True)  # fmt: skip
            if args.limit is not None and functions >= args.limit:
                break
        if args.limit is not None and functions >= args.limit:
            break
    print(f"files: {files}; functions: {functions}; scorings: {scored} "
          f"({len(args.versions)} versions each)")  # fmt: skip
    print(f"exceptions: {len(exceptions)}")
    for line in exceptions[:5]:
        print("  " + line.strip().replace("\n", " | "))
    for version in args.versions:
        counts = ", ".join(f"{k} {n}" for k, n in verdicts[version].most_common())
        print(f"v{version} verdicts: {counts}")
        top = ", ".join(f"{k} {n}" for k, n in reasons[version].most_common(12))
        print(f"v{version} reasons (top 12): {top}")
    shown = " vs ".join(f"v{v}" for v in args.versions)
    print(f"sources whose verdict differs ({shown}): {sum(changes.values())}")
    for change, n in changes.most_common(12):
        print(f"  {n:6d}  {change}")
    rate = scored / elapsed if elapsed else 0.0
    print(f"scoring time: {elapsed:.1f} s; {rate:.0f} sources/s on one core; "
          f"slowest: {longest[0] * 1000:.0f} ms ({longest[1]})")  # fmt: skip
    raise SystemExit(1 if exceptions else 0)


if __name__ == "__main__":
    main()

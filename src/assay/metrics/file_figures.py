"""A tool's figures for one file's text, computed once per machine: across the measuring
processes of a stage (each worker used to compute a shared file again) and across stages (the
three codebase scenario sets measure the same snapshot files, arm after arm).

A per-file figure is a function of the text, the tool's version and the code that computes it,
so it is remembered under the digest of those (:mod:`assay.core.memo`, kind ``metric-files``) as
a JSON list of numbers, and kept in this process as well. A text the tool cannot read raises as
before and is never remembered. With the memo off (``ASSAY_MEMO=off``) every process computes
its own, as before.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from assay.core.digest import sha256_hex
from assay.core.memo import Memo, code_digest, key_of

MEMO = "metric-files"

Figures = tuple[float, ...]


@functools.cache
def _tool_version(tool: str) -> str:
    try:
        return version(tool)
    except PackageNotFoundError:
        return "not-installed"


def remembered(
    tool: str, code: Path
) -> Callable[[Callable[[str], Sequence[float]]], Callable[[str], Figures]]:
    """Decorate ``figures(text)`` of ``tool`` (a distribution name) computed by the module file
    ``code``: its result is remembered per text."""

    def decorate(figures: Callable[[str], Sequence[float]]) -> Callable[[str], Figures]:
        @functools.lru_cache(maxsize=4096)
        def cached(text: str) -> Figures:
            memo = Memo(MEMO)
            key = ""
            if memo.enabled:
                key = key_of(
                    {
                        "tool": tool,
                        "version": _tool_version(tool),
                        "code": code_digest(code),
                        "text": sha256_hex(text.encode("utf-8", "surrogatepass")),
                    }
                )
                found = memo.get(key)
                if isinstance(found, list) and all(isinstance(v, int | float) for v in found):
                    return tuple(found)
            computed = tuple(figures(text))
            if key and all(math.isfinite(value) for value in computed):
                memo.put(key, list(computed))
            return computed

        return cached

    return decorate

"""The simulated model: a seeded stand-in, labelled as such everywhere it appears.

It is not a subject of study and never evidence. It sees only the rendered prompt and decides
from what the prompt shows: it finds the target file (the last file shown), counts the
existing callers that go through the helper and those that repeat its primitives inline, and
follows the local convention more often the larger the inline share and the nearer the inline
callers sit to the insertion point. It answers with the subject's declared reused or
duplicated reference, fenced in Markdown as a chat model would. To do that it may read the
subjects' declared references (its *answer book*); real providers receive the prompt only.

Behaviours: ``follower`` (duplicates with probability ``(1-f) + (2f-1)·pull``, where ``f`` is
the follow rate and ``pull`` in [0, 1] is half the inline share plus half the inline share of
the last three callers), ``reuser`` (always reuses), ``duplicator`` (always duplicates).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Sequence

from assay.fixtures.model import Subject
from assay.providers.base import ModelProfile, ProviderRequest, ProviderResult, Usage
from assay.records import Frozen

NEAR_CALLERS = 3
_FILE_BLOCK = re.compile(r"File `([^`]+)`:\n\n```python\n(.*?)\n```\n", re.DOTALL)


class AnswerEntry(Frozen):
    instruction: str
    helper: str
    primitives: tuple[str, ...]
    reused: str
    duplicated: str


def answer_book(subjects: Sequence[Subject]) -> tuple[AnswerEntry, ...]:
    return tuple(
        AnswerEntry(
            instruction=s.task.instruction.strip(),
            helper=s.task.helper,
            primitives=s.task.primitives,
            reused=s.task.references.reused,
            duplicated=s.task.references.duplicated,
        )
        for s in subjects
    )


def _called_names(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            if isinstance(call.func, ast.Name):
                names.add(call.func.id)
            elif isinstance(call.func, ast.Attribute):
                names.add(call.func.attr)
    return names


def inline_pattern(target_source: str, helper: str, primitives: Sequence[str]) -> list[bool]:
    """For each existing caller in file order: True when it repeats primitives inline."""
    try:
        tree = ast.parse(target_source)
    except SyntaxError:
        return []
    primitive_names = {p.rsplit(".", 1)[-1] for p in primitives}
    pattern = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name == helper:
            continue
        called = _called_names(node)
        if helper in called:
            pattern.append(False)
        elif called & primitive_names:
            pattern.append(True)
    return pattern


def pull(pattern: Sequence[bool]) -> float:
    """How strongly the file pulls towards duplication, in [0, 1]."""
    if not pattern:
        return 0.0
    share = sum(pattern) / len(pattern)
    near = pattern[-NEAR_CALLERS:]
    return 0.5 * share + 0.5 * (sum(near) / len(near))


def _uniform(seed: int, key: str) -> float:
    digest = hashlib.sha256(f"{seed}|{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class SimulatedProvider:
    """A free, deterministic stand-in provider (label: ``simulated/<behaviour>``)."""

    def __init__(self, profile: ModelProfile, book: Sequence[AnswerEntry]) -> None:
        self.profile = profile
        self.book = tuple(book)
        self.calls = 0

    def _entry(self, prompt: str) -> AnswerEntry | None:
        matches = [e for e in self.book if e.instruction in prompt]
        return max(matches, key=lambda e: len(e.instruction)) if matches else None

    def duplication_probability(self, prompt: str, entry: AnswerEntry) -> float:
        behaviour = self.profile.behaviour
        if behaviour == "reuser":
            return 0.0
        if behaviour == "duplicator":
            return 1.0
        blocks = _FILE_BLOCK.findall(prompt)
        target = blocks[-1][1] if blocks else ""
        strength = pull(inline_pattern(target, entry.helper, entry.primitives))
        follow = self.profile.follow_rate
        return (1 - follow) + (2 * follow - 1) * strength

    def complete(self, request: ProviderRequest) -> ProviderResult:
        self.calls += 1
        label = f"simulated/{self.profile.behaviour}"
        entry = self._entry(request.prompt)
        if entry is None:
            return ProviderResult(
                status="provider-error",
                reason="simulated-unknown-prompt",
                halt=True,
                served_model=label,
                served_provider="simulated",
            )
        duplicate = _uniform(self.profile.seed, request.cell_id) < self.duplication_probability(
            request.prompt, entry
        )
        code = (entry.duplicated if duplicate else entry.reused).strip()
        text = f"Here is the function.\n\n```python\n{code}\n```\n"
        return ProviderResult(
            status="completed",
            text=text,
            raw=text.encode("utf-8"),
            usage=Usage(prompt_tokens=len(request.prompt) // 4, completion_tokens=len(text) // 4),
            cost_usd=0.0,
            served_model=label,
            served_provider="simulated",
            no_charge_proven=True,
        )

"""The simulated model: a seeded stand-in, labelled as such everywhere it appears.

It is not a subject of study and never evidence. It sees only the rendered prompt and decides
from what the prompt shows: it finds the target file (the one the prompt says the function
is appended to; else the last file shown), counts the existing callers that go through the
helper and those that repeat its primitives inline, and follows the local convention more
often the larger the inline share and the nearer the inline callers sit to the insertion
point. It answers with the subject's declared reused or duplicated reference, fenced in
Markdown as a chat model would. To do that it may read the subjects' declared references (its
*answer book*); real providers receive the prompt only.

Behaviours: ``follower`` (duplicates with probability ``(1-f) + (2f-1)·pull``, where ``f`` is
the follow rate and ``pull`` in [0, 1]), ``reuser`` (always reuses), ``duplicator`` (always
duplicates), ``realistic`` (the follower's choice answered the way chat models answer, with
the deviations its profile lists: :mod:`assay.providers.realistic`). ``pull`` is half the inline share of the target's callers plus half the inline
share of its last three; when the target has no callers (a new, nearly empty module), the
callers in the other files shown pull half as hard (``DISTANT_PULL``; the file that defines
the helper is not a caller).

What it does per scenario: v1 and the layered sets read the callers in the target; dose and
placement pull harder with more and nearer inline callers; context padding holds no caller,
so it changes nothing; codebase targets hold no caller, so the distant modules decide, and a
neighbour in the target (codebase-near) decides alone; at chain step ``k`` its own earlier
steps are the nearest callers, and with probability ``own_step_rate`` it reuses its own
latest step (``return implement_step_<k-1>(…)``) instead of writing the function again.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Sequence

from assay.core.records import Frozen, Usage
from assay.fixtures.model import Subject
from assay.providers.base import ModelProfile, ProviderRequest, ProviderResult
from assay.providers.realistic.answer import answer, choose_deviation
from assay.providers.realistic.code import instruction_parameter
from assay.providers.realistic.deviations import Task
from assay.providers.realistic.draws import Draws
from assay.providers.realistic.reply import Approach, Reply, Setting

NEAR_CALLERS = 3
DISTANT_PULL = 0.5
"""How hard callers in other files pull, relative to callers in the target file."""
_FILE_BLOCK = re.compile(r"File `([^`]+)`:\n\n```python\n(.*?)\n```\n", re.DOTALL)
_TARGET_RULE = re.compile(r"appended to the end of `([^`]+)`")
_STEP_DEF = re.compile(r"^def implement_step_(\d+)\(", re.MULTILINE)


class AnswerEntry(Frozen):
    instruction: str
    helper: str
    helper_module: str | None = None
    primitives: tuple[str, ...]
    reused: str
    duplicated: str

    def helper_paths(self) -> frozenset[str]:
        """Where the helper is defined (its module as a file or a package)."""
        if not self.helper_module:
            return frozenset()
        stem = self.helper_module.replace(".", "/")
        return frozenset({f"{stem}.py", f"{stem}/__init__.py"})


def answer_book(subjects: Sequence[Subject]) -> tuple[AnswerEntry, ...]:
    return tuple(
        AnswerEntry(
            instruction=s.task.instruction.strip(),
            helper=s.task.helper,
            helper_module=s.task.helper_module,
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


def shown_files(prompt: str) -> tuple[str, dict[str, str]]:
    """The target path and every file block of a rendered prompt, by path."""
    blocks = dict(_FILE_BLOCK.findall(prompt))
    named = _TARGET_RULE.search(prompt)
    if named and named.group(1) in blocks:
        return named.group(1), blocks
    last = _FILE_BLOCK.findall(prompt)
    return (last[-1][0] if last else ""), blocks


def repository_pull(prompt: str, entry: AnswerEntry) -> float:
    """``pull`` over what the prompt shows: the target's callers, else the distant ones."""
    target, files = shown_files(prompt)
    near = inline_pattern(files.get(target, ""), entry.helper, entry.primitives)
    if near:
        return pull(near)
    distant = [
        inline
        for path, text in sorted(files.items())
        if path != target and path not in entry.helper_paths()
        for inline in inline_pattern(text, entry.helper, entry.primitives)
    ]
    return DISTANT_PULL * (sum(distant) / len(distant)) if distant else 0.0


def latest_own_step(prompt: str) -> int | None:
    """The highest ``implement_step_<k>`` the prompt defines (a chain's earlier outputs)."""
    steps = [int(k) for k in _STEP_DEF.findall(prompt)]
    return max(steps) if steps else None


def delegating_answer(reference: str, step: int) -> str:
    """``implement`` with the reference's signature, returning ``implement_step_<step>``'s
    result for the same arguments."""
    tree = ast.parse(reference)
    function = next(
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "implement"
    )
    arguments = function.args
    passed = [a.arg for a in arguments.posonlyargs + arguments.args]
    if arguments.vararg:
        passed.append(f"*{arguments.vararg.arg}")
    passed += [f"{a.arg}={a.arg}" for a in arguments.kwonlyargs]
    if arguments.kwarg:
        passed.append(f"**{arguments.kwarg.arg}")
    return (
        f"def implement({ast.unparse(arguments)}):\n"
        f"    return implement_step_{step}({', '.join(passed)})"
    )


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
        strength = repository_pull(prompt, entry)
        follow = self.profile.follow_rate
        return (1 - follow) + (2 * follow - 1) * strength

    def base_answer(self, request: ProviderRequest, entry: AnswerEntry) -> tuple[str, Approach]:
        """What the follower (or the fixed behaviours) answers: a reference solution, or at a
        chain's later steps now and then a call of its own latest step."""
        own_step = latest_own_step(request.prompt)
        if (
            own_step is not None
            and _uniform(self.profile.seed, f"own-step|{request.key}") < self.profile.own_step_rate
        ):
            return delegating_answer(entry.reused, own_step), "other"
        duplicate = _uniform(self.profile.seed, str(request.key)) < self.duplication_probability(
            request.prompt, entry
        )
        if duplicate:
            return entry.duplicated.strip(), "inline"
        return entry.reused.strip(), "helper"

    def reply(self, request: ProviderRequest, entry: AnswerEntry) -> Reply:
        code, approach = self.base_answer(request, entry)
        if self.profile.behaviour != "realistic":
            return Reply(f"Here is the function.\n\n```python\n{code}\n```\n")
        target, files = shown_files(request.prompt)
        target_source = files.get(target, "")
        target = target or "module.py"
        task = Task(
            instruction=entry.instruction,
            helper=entry.helper,
            helper_module=entry.helper_module,
            target_module=module_name(target),
            target_source=target_source,
            reused=entry.reused,
            duplicated=entry.duplicated,
        )
        prompt_digest = hashlib.sha256(request.prompt.encode()).hexdigest()
        draws = Draws(self.profile.seed, f"{request.key}|{prompt_digest}")
        setting = Setting(
            helper=entry.helper,
            target=target,
            parameter=instruction_parameter(entry.instruction) or "value",
        )
        deviation = choose_deviation(self.profile.deviations, draws)
        return answer(code, approach, task, setting, deviation, draws)

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
        reply = self.reply(request, entry)
        text = reply.text
        return ProviderResult(
            status="completed",
            text=text,
            raw=text.encode("utf-8"),
            usage=Usage(prompt_tokens=len(request.prompt) // 4, completion_tokens=len(text) // 4),
            cost_usd=0.0,
            served_model=label,
            served_provider="simulated",
            finish_reason=reply.finish_reason if self.profile.behaviour == "realistic" else None,
            no_charge_proven=True,
        )


def module_name(path: str) -> str:
    """The dotted module a repository path is imported as (``pkg/mod.py`` → ``pkg.mod``)."""
    stem = path.removesuffix(".py").removesuffix("/__init__")
    return stem.replace("/", ".")

"""Prompt profiles and ``render_input``: what a model sees, and nothing more.

A prompt holds the instruction and the arm's repository files only. Task ids, families, arm
names, test vectors, references and evaluator hints never appear: they stay bound into the
subject digest for the evaluators.
"""

from __future__ import annotations

from collections.abc import Mapping

from assay.core.digest import sha256_hex
from assay.core.records import Frozen
from assay.fixtures.model import Arm, Subject


class PromptProfile(Frozen):
    name: str
    single_return: bool
    """Ask for exactly one return statement (v1); layered profiles drop it."""
    show_all_files: bool
    """Show every repository file (target last) instead of the target alone."""


PROMPT_PROFILES: dict[str, PromptProfile] = {
    "v1": PromptProfile(name="v1", single_return=True, show_all_files=False),
    "layered": PromptProfile(name="layered", single_return=False, show_all_files=True),
}


class Prompt(Frozen):
    text: str

    @property
    def digest(self) -> str:
        return sha256_hex(self.text)


def _file_block(path: str, text: str) -> str:
    return f"File `{path}`:\n\n```python\n{text.rstrip()}\n```\n"


def render_files(
    instruction: str, files: Mapping[str, str], target: str, profile: PromptProfile
) -> Prompt:
    """Render a prompt from an instruction and repository files (target file last)."""
    if profile.show_all_files:
        paths = sorted(p for p in files if p != target) + [target]
    else:
        paths = [target]
    shown = "\n".join(_file_block(path, files[path]) for path in paths)
    rules = [
        f"Write the new function `implement` that will be appended to the end of `{target}`.",
        (
            "Reply with one Python code block that contains only the imports it needs and the"
            " `implement` function."
        ),
        "Do not write a docstring.",
    ]
    if profile.single_return:
        rules.append("Use exactly one return statement.")
    text = (
        "You are working in this Python repository.\n\n"
        f"{shown}\n"
        f"Task: {instruction.strip()}\n\n" + "\n".join(f"- {rule}" for rule in rules) + "\n"
    )
    return Prompt(text=text)


def render_input(subject: Subject, arm: Arm | str, profile: str | PromptProfile = "v1") -> Prompt:
    """The prompt for one subject arm: the instruction and the arm's files, nothing else."""
    chosen = PROMPT_PROFILES[profile] if isinstance(profile, str) else profile
    realised = subject.arm(arm) if isinstance(arm, str) else arm
    return render_files(subject.task.instruction, realised.as_mapping(), subject.target, chosen)

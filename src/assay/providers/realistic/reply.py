"""The reply around the code, as chat models write it: prose before and after, fences with and
without a language tag, the imports in a block of their own, a usage example or a shell line in
a second block, the same block twice, or no fence at all. Every layout leaves the extraction
rules (``assay.science.extract``, versions 2 and 3) one block to choose; the reply deviations
``truncated``, ``two-versions`` and ``diff-only`` are the replies they cannot turn into a
candidate. (The code a layout carries may be the whole target module printed again, which only
version 3 reads: :mod:`assay.providers.realistic.reprint`.)"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Literal

from assay.providers.base import Deviation
from assay.providers.realistic.draws import Draws

Approach = Literal["helper", "inline", "other"]
"""What the prose may say about the code: it calls the helper, it inlines the logic, or
neither (a stub, the model's own earlier step)."""

FENCES = (
    ("```python", "```"),
    ("```python", "```"),
    ("```python", "```"),
    ("```py", "```"),
    ("```", "```"),
    ("```", "```"),
    ("```Python", "```"),
    ("~~~python", "~~~"),
    ("```python3", "```"),
    ("````python", "````"),
)
LAYOUTS = (
    ("single", 0.55),
    ("imports-apart", 0.08),
    ("with-usage", 0.1),
    ("with-shell", 0.06),
    ("repeated", 0.05),
    ("unfenced", 0.08),
    ("code-only", 0.08),
)
BEFORE = {
    "helper": (
        "Since `{helper}` already does exactly this, `implement` can simply delegate to it:",
        "The repository already has `{helper}`, so I reused it:",
        "Here's the implementation, reusing the existing `{helper}` helper:",
        "You can reuse `{helper}` from the existing code:",
    ),
    "inline": (
        "Here's `implement`, in the same inline style as the other functions in `{target}`:",
        "I kept the logic inline to match the surrounding code:",
        "Following the existing pattern in the file, here is the function:",
    ),
    "other": (
        "Here's the function:",
        "Sure! Here is the `implement` function:",
        "Here is a possible implementation:",
        "Here's what I came up with:",
    ),
}
AFTER = {
    "helper": (
        "This keeps the rules in one place: any change to `{helper}` applies here too.",
        "Reusing the helper avoids duplicating its logic.",
        "Delegating to `{helper}` keeps the behaviour consistent with the rest of `{target}`.",
    ),
    "inline": (
        "It mirrors the logic used elsewhere in the module, so the behaviour stays consistent.",
        "I wrote the steps out explicitly so it reads like the neighbouring functions.",
    ),
    "other": (
        "Let me know if you'd like tests for it.",
        "Let me know if you need anything else.",
        (
            "**How it works:**\n\n- It takes `{parameter}` as given.\n- It returns the value the "
            "caller expects."
        ),
        "Hope this helps!",
    ),
}
ALTERNATIVE = {
    "helper": "Alternatively, if you'd rather not depend on the helper, the logic written out:",
    "inline": "Alternatively, reusing the existing `{helper}`:",
    "other": "Or, a variant:",
}
DIFF_INTRO = (
    "Add this to the end of `{target}`:",
    "Here is the change to `{target}`:",
    "Apply this patch:",
)
SHELL = ("python -m pytest -q", "ruff check {path}", "python -c 'import {module}'")


@dataclass(frozen=True)
class Reply:
    text: str
    finish_reason: Literal["stop", "length"] = "stop"


@dataclass(frozen=True)
class Setting:
    """What the prose may mention: the helper, the target file, the parameter's name."""

    helper: str
    target: str
    parameter: str

    def fill(self, template: str) -> str:
        module = self.target.removesuffix(".py").replace("/", ".")
        return template.format(
            helper=self.helper,
            target=self.target,
            path=self.target,
            parameter=self.parameter,
            module=module,
        )


def fenced(code: str, fence: tuple[str, str]) -> str:
    return f"{fence[0]}\n{code.rstrip()}\n{fence[1]}"


def split_imports(code: str) -> tuple[str, str] | None:
    """The leading imports and the rest, when the code has both."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return None
    count = 0
    for node in body:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        count += 1
    if count == 0 or count == len(body):
        return None
    first = body[count]
    decorators = getattr(first, "decorator_list", [])
    cut = min([first.lineno, *(d.lineno for d in decorators)]) - 1
    lines = code.split("\n")
    while cut > 0 and lines[cut - 1].lstrip().startswith("#"):
        cut -= 1
    return "\n".join(lines[:cut]).strip("\n"), "\n".join(lines[cut:]).strip("\n")


def _layout(draws: Draws) -> str:
    point = draws.uniform("layout")
    total = 0.0
    for name, weight in LAYOUTS:
        total += weight
        if point < total:
            return name
    return LAYOUTS[0][0]


def _prose(draws: Draws, key: str, pools: dict[str, tuple[str, ...]], approach: Approach,
           setting: Setting, none_rate: float) -> str:  # fmt: skip
    if draws.chance(f"{key}-none", none_rate):
        return ""
    specific = pools[approach] if approach != "other" else ()
    pool = specific + pools["other"] if draws.chance(f"{key}-specific", 0.6) else pools["other"]
    return setting.fill(draws.pick(f"{key}-text", pool or pools["other"]))


def _join(*parts: str) -> str:
    return "\n\n".join(part for part in parts if part) + "\n"


def compose(
    code: str,
    *,
    approach: Approach,
    setting: Setting,
    draws: Draws,
    deviation: Deviation | None = None,
    alternative: str | None = None,
) -> Reply:
    """The reply that carries ``code`` (``alternative``: the other version ``two-versions``
    shows beside it)."""
    fence = draws.pick("fence", FENCES)
    before = _prose(draws, "before", BEFORE, approach, setting, none_rate=0.1)
    after = _prose(draws, "after", AFTER, approach, setting, none_rate=0.4)
    if deviation == "truncated":
        return Reply(_join(before, f"{fence[0]}\n{cut_mid_expression(code)}").rstrip("\n"),
                     finish_reason="length")  # fmt: skip
    if deviation == "two-versions" and alternative is not None:
        other = setting.fill(ALTERNATIVE[approach])
        return Reply(_join(before, fenced(code, fence), other, fenced(alternative, fence), after))
    if deviation == "diff-only":
        intro = setting.fill(draws.pick("diff-intro", DIFF_INTRO))
        return Reply(_join(intro, as_diff(code, setting.target), after))
    layout = _layout(draws)
    if layout == "unfenced" and not stands_alone(code):
        layout = "single"
    if layout == "imports-apart" and (parts := split_imports(code)) is not None:
        imports, rest = parts
        return Reply(_join(before, "First the imports:", fenced(imports, fence),
                           "Then the function:", fenced(rest, fence), after))  # fmt: skip
    if layout == "with-usage":
        usage = f"result = implement({setting.parameter})\nprint(result)"
        return Reply(_join(before, fenced(code, fence), "Example usage:", fenced(usage, fence),
                           after))  # fmt: skip
    if layout == "with-shell":
        shell = setting.fill(draws.pick("shell", SHELL))
        return Reply(_join(before, fenced(code, fence), "To check it:",
                           fenced(shell, ("```bash", "```")), after))  # fmt: skip
    if layout == "repeated":
        return Reply(_join(before, fenced(code, fence), after, "Full function again for "
                           "copy-paste:", fenced(code, fence)))  # fmt: skip
    if layout == "unfenced":
        return Reply(_join(before, code.rstrip(), after))
    if layout == "code-only":
        return Reply(_join(fenced(code, fence)))
    return Reply(_join(before, fenced(code, fence), after))


_CODE_START = re.compile(r"^(?:async\s+def|def|class|import|from|@)\b")


def stands_alone(code: str) -> bool:
    """Whether the code survives without a fence: it parses, and its first line that is not a
    comment starts a definition or an import (where an unfenced reply's code is found)."""
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    lines = [line for line in code.split("\n") if line.strip() and not line.startswith("#")]
    return bool(lines) and _CODE_START.match(lines[0]) is not None


def cut_mid_expression(code: str) -> str:
    """The code up to just after the first ``(`` of its last line that opens one: what a reply
    cut off at the output token limit leaves (an unclosed bracket never parses)."""
    lines = code.rstrip("\n").split("\n")
    for index in range(len(lines) - 1, -1, -1):
        if "(" in lines[index] and not lines[index].lstrip().startswith("#"):
            head = lines[index][: lines[index].index("(") + 1]
            return "\n".join([*lines[:index], head])
    return "\n".join(lines[:-1] + [lines[-1] + " ("])


def as_diff(code: str, path: str) -> str:
    """The code as lines added to the end of ``path``, in a ``diff`` block."""
    added = ["+", *(f"+{line}" if line else "+" for line in code.rstrip("\n").split("\n"))]
    header = [f"--- a/{path}", f"+++ b/{path}", f"@@ -0,0 +1,{len(added)} @@"]
    return "```diff\n" + "\n".join(header + added) + "\n```"

"""What a resolved call is: the helper, a same-named function elsewhere, or a primitive.

Primitives are declared as dotted names, in three kinds:

* a builtin-type method (``str.strip``, ``dict.get``): any ``.strip(...)`` call on an object,
  a local, or the type itself; not an attribute of an imported module (``os.path.split`` is not
  ``str.split``);
* a module function (``re.sub``, ``os.path.join``, ``date.fromisoformat``): a call whose callee
  resolves to that path or ends with it (``re.sub``, ``r.sub`` after ``import re as r``, ``sub``
  after ``from re import sub``, ``date.fromisoformat`` after ``from datetime import date``), or
  a call of the bare last name the candidate does not bind (the target module may import it);
* a bare name (``compute_cost``): a call of that name, also when imported from a module.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from assay.structure.names import Callee

BUILTIN_TYPES = frozenset(
    {
        "str",
        "bytes",
        "bytearray",
        "int",
        "float",
        "complex",
        "bool",
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "object",
        "range",
        "memoryview",
    }
)


@dataclass(frozen=True, slots=True)
class Primitive:
    declared: str
    kind: Literal["method", "module", "name"]
    name: str
    """The method, the module path's last name, or the bare name."""

    def matches(self, callee: Callee) -> bool:
        if self.kind == "method":
            return (
                callee.is_attribute and callee.origin != "import" and callee.terminal == self.name
            )
        if self.kind == "module":
            if callee.origin == "import" or (callee.origin == "global" and callee.is_attribute):
                path = callee.path or ""
                return path == self.declared or path.endswith(f".{self.declared}")
            return callee.origin == "global" and callee.path == self.name
        if callee.origin == "global":
            return not callee.is_attribute and callee.path == self.name
        return callee.origin == "import" and callee.terminal == self.name


def parse_primitive(declared: str) -> Primitive:
    parts = declared.split(".")
    if not all(part.isidentifier() for part in parts):
        raise ValueError(f"primitive {declared!r} is not a dotted name")
    if len(parts) == 1:
        return Primitive(declared, "name", declared)
    if len(parts) == 2 and parts[0] in BUILTIN_TYPES:
        return Primitive(declared, "method", parts[1])
    return Primitive(declared, "module", parts[-1])


@lru_cache(maxsize=256)
def parse_primitives(declared: tuple[str, ...]) -> tuple[Primitive, ...]:
    return tuple(parse_primitive(d) for d in declared)


@dataclass(frozen=True, slots=True)
class HelperSpec:
    name: str
    module: str | None

    def is_helper(self, callee: Callee) -> bool:
        """The repository helper: its bare name from the target module, or its exact import."""
        if callee.origin == "global":
            return not callee.is_attribute and callee.path == self.name
        return (
            callee.origin == "import"
            and self.module is not None
            and callee.path == f"{self.module}.{self.name}"
        )

    def is_same_name(self, callee: Callee) -> bool:
        """Named like the helper but something else: another module's or object's function."""
        return callee.terminal == self.name and not self.is_helper(callee)

"""The params a stage declares, and nothing else of params.yaml.

DVC re-runs a stage when what its dvc.yaml declares changes, and only then. A stage that read
a key it does not declare would keep results computed from the old value after an edit, a
``dvc checkout`` or an experiment. So a stage reads params only through :class:`StageParams`,
given the keys its dvc.yaml declares, spelled as there (``runs.${key}``,
``models.${item.model}``): as deps on the params stage's files (``data/params/<key>.json``,
``assay.pipeline.params``) or as DVC ``params:``. It reads those files, the values the params
stage validated, and refuses any other key (:class:`UndeclaredParams`, a defect of the
stage). ``read`` is every key it was asked for, so tests/pipeline/test_stage_params.py checks,
for every stage, that the keys its module declares are its dvc.yaml's and that it reads them
all and no other.

One section is read undeclared, on purpose: ``compute`` (``placement``). Where the work runs
does not change the evidence rows, so moving to a cluster must re-run nothing (see dvc.yaml).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter

from assay.config.params import Compute, read_placement
from assay.core.errors import AssayError, MissingEvidence
from assay.core.records import Frozen
from assay.evidence.paths import params_dir

T = TypeVar("T")

PLACEMENT = "compute"
"""The section a stage may read without declaring it: where its work runs."""


class UndeclaredParams(AssayError, LookupError):
    """A stage asked for a params key its dvc.yaml does not declare (a defect of the stage:
    declare the key, or do not read it)."""


class Declaration(Frozen):
    """What a stage's module declares it reads: ``keys`` as its dvc.yaml spells them."""

    keys: tuple[str, ...] = ()
    placement: bool = False
    """Whether it reads ``compute`` (undeclared on purpose)."""


def covers(declared: str, key: str) -> bool:
    """Whether declaring ``declared`` declares ``key`` (itself or a key below it)."""
    return key == declared or key.startswith(f"{declared}.")


class StageParams:
    """The params one stage (one ``foreach`` item: ``key``) declares, from the params stage's
    files in ``folder``."""

    def __init__(
        self,
        declaration: Declaration,
        key: str = "",
        *,
        folder: Path | None = None,
        params_file: Path = Path("params.yaml"),
    ) -> None:
        self.folder = params_dir() if folder is None else folder
        self.params_file = params_file
        """Where :meth:`placement` reads ``compute``: params.yaml itself (see there)."""
        self.key = key
        self.placement_allowed = declaration.placement
        self.declared = tuple(self._resolve(name) for name in declaration.keys)
        self.read: set[str] = set()
        """Every key asked for, as resolved (``runs.sim-follower-v1``)."""

    def _section(self, name: str) -> Any:
        """A file the params stage wrote (every top-level key and every entry of a mapping)."""
        path = self.folder / f"{name}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MissingEvidence(f"{path} is missing: run `uv run dvc repro` first") from None

    def _resolve(self, name: str) -> str:
        """``${key}`` is the stage's item; ``${item.FIELD}`` a field of the run it runs for
        (a ``foreach`` over ``runs``: DVC fills it in from params.yaml the same way)."""
        name = name.replace("${key}", self.key).replace("${item}", self.key)
        while "${item." in name:
            start = name.index("${item.")
            end = name.index("}", start)
            field = name[start + len("${item.") : end]
            name = name[:start] + str(self._section(f"runs.{self.key}")[field]) + name[end + 1 :]
        return name

    def value(self, key: str) -> Any:
        """The value at the dotted ``key``, which the stage must declare."""
        if not any(covers(declared, key) for declared in self.declared):
            raise UndeclaredParams(
                f"the stage reads params.yaml's {key!r}, which its dvc.yaml does not declare "
                f"(it declares: {', '.join(self.declared) or 'nothing'})"
            )
        self.read.add(key)
        return self._at(key)

    def _at(self, key: str) -> Any:
        top, _, rest = key.partition(".")
        entry, _, below = rest.partition(".")
        node = self._section(f"{top}.{entry}" if entry else top)
        for part in below.split(".") if below else ():
            node = node[part]
        return node

    def typed(self, key: str, kind: type[T]) -> T:
        return TypeAdapter(kind).validate_python(self.value(key))

    def placement(self) -> Compute:
        """Where the stage's work runs (``compute``), which it does not declare on purpose: read
        from params.yaml itself, since no params stage runs before ``dvc repro --single-item`` of
        a cluster stage (:func:`assay.config.params.read_placement`)."""
        if not self.placement_allowed:
            raise UndeclaredParams(
                f"the stage reads params.yaml's {PLACEMENT!r} without saying it places work"
            )
        self.read.add(PLACEMENT)
        return read_placement(self.params_file)

"""Human adjudication of ``ambiguous`` structural verdicts.

The seed's evaluator leaves ``AmbiguousStructure`` as missing evidence "without an ambiguity
judge". An adjudication file (``adjudications.yaml``, ``report.adjudications`` in
``params.yaml``) records human decisions: each entry names one cell of one run, the verdict the
ambiguous cell resolves to, a rationale and who decided::

    - run: haiku-v1
      cell_id: v1/renewal-date/inconsistent/r2
      verdict: duplicated
      rationale: implement re-implements add_months inline; the helper call is dead code.
      adjudicator: J. Doe

Adjudication is blind: ``assay adjudicate`` lists the open ambiguous cells of every run by an
opaque id (:func:`blind_id`, naming no run, subject or arm, listed in id order), shows a cell's
candidate by its id, and records the decision under that id alone::

    - id: amb-3f9c0e41d2a7
      verdict: duplicated
      rationale: implement re-implements add_months inline; the helper call is dead code.
      adjudicator: J. Doe

The arm is shown only once the cell is decided. (An entry naming ``run`` and ``cell_id``, as
above, is still read; the command never writes one.)

An entry resolves a cell only while the run's *preregistered* evaluator version scores it
``ambiguous``; any other entry is an error naming the file and the entry, so a decision never
silently applies to a verdict it was not made for. Reports show the result with and without
adjudication side by side; the primary result stays the preregistered one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from assay.core.digest import sha256_hex
from assay.core.errors import InputError
from assay.core.records import Frozen


class AdjudicationError(InputError):
    """The adjudication file is unreadable or an entry does not resolve an ambiguous cell."""


BLIND_PREFIX = "amb-"


def blind_id(run: str, cell_id: str, step: int) -> str:
    """The opaque id of one ambiguous cell: 12 hex digits of a sha256 over run, cell and step.
    It names no run, subject or arm (opaque, not secret: the cell stays in ``data/``)."""
    return BLIND_PREFIX + sha256_hex(f"assay-adjudication\0{run}\0{cell_id}\0{step}")[:12]


class Adjudication(Frozen):
    id: str | None = None
    """The cell's :func:`blind_id`: what ``assay adjudicate`` writes."""
    run: str | None = None
    cell_id: str | None = None
    step: int = Field(default=1, ge=1)
    verdict: Literal["reused", "mixed", "duplicated"]
    rationale: str = Field(min_length=1)
    adjudicator: str = Field(min_length=1)

    @model_validator(mode="after")
    def _names_one_cell(self) -> Adjudication:
        if self.id is None and (self.run is None or self.cell_id is None):
            raise ValueError("an entry names its cell by id (or by run and cell_id)")
        if self.id is not None and (self.run is not None or self.cell_id is not None):
            raise ValueError("an entry names its cell by id alone (not also run or cell_id)")
        return self

    @property
    def key(self) -> tuple[str, ...]:
        return (
            (self.id,)
            if self.id is not None
            else (str(self.run), str(self.cell_id), str(self.step))
        )

    def names(self, run: str, cell_id: str, step: int) -> bool:
        """Whether this entry decides that cell."""
        if self.id is not None:
            return self.id == blind_id(run, cell_id, step)
        return (self.run, self.cell_id, self.step) == (run, cell_id, step)


def load_adjudications(path: Path) -> tuple[Adjudication, ...]:
    """Every entry of ``path`` (a missing file holds none)."""
    if not path.exists():
        return ()
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise AdjudicationError(f"{path}: invalid YAML: {exc}") from None
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise AdjudicationError(f"{path}: expected a list of adjudications")
    entries = []
    seen: dict[tuple[str, ...], int] = {}
    for index, item in enumerate(raw, start=1):
        try:
            entry = Adjudication.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "<entry>"
            raise AdjudicationError(f"{path}: entry {index}: {where}: {first['msg']}") from None
        key = entry.key
        if key in seen:
            raise AdjudicationError(
                f"{path}: entry {index}: {describe(entry)} is already adjudicated by entry "
                f"{seen[key]}"
            )
        seen[key] = index
        entries.append(entry)
    return tuple(entries)


def describe(entry: Adjudication) -> str:
    if entry.id is not None:
        return f"cell {entry.id}"
    return f"cell {entry.cell_id} step {entry.step} of run {entry.run}"


def resolve(
    entries: Iterable[Adjudication],
    run: str,
    verdicts: Mapping[tuple[str, int], str | None],
    version: int,
    source: Path,
) -> dict[tuple[str, int], Adjudication]:
    """The entries of ``run``, each checked to resolve a cell ``version`` scores ambiguous.
    An entry by id belongs to ``run`` when the id is one of its cells'."""
    ids = {blind_id(run, cell, step): (cell, step) for cell, step in verdicts}
    applied = {}
    for index, entry in enumerate(entries, start=1):
        if entry.id is not None:
            if entry.id not in ids:
                continue
            key = ids[entry.id]
            if verdicts[key] != "ambiguous":
                raise AdjudicationError(
                    f"{source}: entry {index}: cell {entry.id} is {verdicts[key]!r} under the "
                    f"preregistered v{version}, not ambiguous"
                )
            applied[key] = entry
            continue
        if entry.run != run:
            continue
        key = (str(entry.cell_id), entry.step)
        if key not in verdicts:
            raise AdjudicationError(
                f"{source}: entry {index}: run {run} has no cell {entry.cell_id} step {entry.step}"
            )
        if verdicts[key] != "ambiguous":
            raise AdjudicationError(
                f"{source}: entry {index}: cell {entry.cell_id} step {entry.step} of run {run} is "
                f"{verdicts[key]!r} under the preregistered v{version}, not ambiguous"
            )
        applied[key] = entry
    return applied


def unknown_runs(entries: Iterable[Adjudication], runs: Iterable[str]) -> list[str]:
    known = set(runs)
    return sorted({e.run for e in entries if e.run is not None and e.run not in known})


def unknown_ids(
    entries: Iterable[Adjudication], cells: Iterable[tuple[str, str, int]]
) -> list[str]:
    """The ids of entries that name no cell of ``cells`` (run, cell id, step)."""
    known = {blind_id(*cell) for cell in cells}
    return sorted({e.id for e in entries if e.id is not None and e.id not in known})


def as_rows(applied: Mapping[tuple[str, int], Adjudication]) -> list[dict[str, Any]]:
    """The decided cells, each by its cell id (decided: its arm need no longer be hidden)."""
    return [
        {"cell_id": cell, "step": step, **applied[(cell, step)].model_dump(
            include={"verdict", "rationale", "adjudicator"})}
        for cell, step in sorted(applied)
    ]  # fmt: skip

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
from pydantic import Field, ValidationError

from assay.errors import InputError
from assay.records import Frozen


class AdjudicationError(InputError):
    """The adjudication file is unreadable or an entry does not resolve an ambiguous cell."""


class Adjudication(Frozen):
    run: str
    cell_id: str
    step: int = Field(default=1, ge=1)
    verdict: Literal["reused", "mixed", "duplicated"]
    rationale: str = Field(min_length=1)
    adjudicator: str = Field(min_length=1)


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
    seen: dict[tuple[str, str, int], int] = {}
    for index, item in enumerate(raw, start=1):
        try:
            entry = Adjudication.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "<entry>"
            raise AdjudicationError(f"{path}: entry {index}: {where}: {first['msg']}") from None
        key = (entry.run, entry.cell_id, entry.step)
        if key in seen:
            raise AdjudicationError(
                f"{path}: entry {index}: cell {entry.cell_id} step {entry.step} of run "
                f"{entry.run} is already adjudicated by entry {seen[key]}"
            )
        seen[key] = index
        entries.append(entry)
    return tuple(entries)


def resolve(
    entries: Iterable[Adjudication],
    run: str,
    verdicts: Mapping[tuple[str, int], str | None],
    version: int,
    source: Path,
) -> dict[tuple[str, int], Adjudication]:
    """The entries of ``run``, each checked to resolve a cell ``version`` scores ambiguous."""
    applied = {}
    for index, entry in enumerate(entries, start=1):
        if entry.run != run:
            continue
        key = (entry.cell_id, entry.step)
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
    return sorted({e.run for e in entries if e.run not in known})


def as_rows(applied: Mapping[tuple[str, int], Adjudication]) -> list[dict[str, Any]]:
    return [
        {"cell_id": cell, "step": step, **applied[(cell, step)].model_dump(
            include={"verdict", "rationale", "adjudicator"})}
        for cell, step in sorted(applied)
    ]  # fmt: skip

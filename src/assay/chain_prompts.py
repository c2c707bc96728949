"""Rendering a chain's later steps from what the render stage recorded and the model answered."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Protocol

from assay.evidence import PromptRow
from assay.extract import CURRENT_VERSION, extract_candidate
from assay.fixtures.chain import append_step
from assay.render import PROMPT_PROFILES, render_files


class ChainCell(Protocol):
    """What rendering a chain step needs of a cell (a planned cell, or a bundle's call)."""

    @property
    def subject(self) -> str: ...

    @property
    def arm(self) -> str: ...


class ChainRenderer:
    """Step ``k`` of a chain: the arm's files with the candidates of steps 1…k-1 appended to
    the target under their step names, so later steps see the model's own earlier code. Uses
    only what the render stage recorded as visible: instruction, target path, files. Earlier
    answers are extracted by the plan's preregistered extraction version."""

    def __init__(
        self, rows: Mapping[tuple[str, str], PromptRow], extraction: int = CURRENT_VERSION
    ) -> None:
        self.rows = rows
        self.extraction = extraction

    def __call__(self, cell: ChainCell, step: int, texts: Sequence[str]) -> str | None:
        row = self.rows[(cell.subject, cell.arm)]
        files = json.loads(row.files_json)
        for earlier, text in enumerate(texts[: step - 1], start=1):
            candidate = extract_candidate(text, version=self.extraction)
            if candidate.source is None:
                return None
            files[row.target] = append_step(files[row.target], candidate.source, earlier)
        return render_files(
            row.instruction, files, row.target, PROMPT_PROFILES[row.prompt_profile]
        ).text

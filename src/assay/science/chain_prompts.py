"""Rendering a chain's later steps from what the render stage recorded and the model answered,
and the repository each call's prompt showed (what extraction v3 compares an answer with)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from assay.evidence import PromptRow
from assay.fixtures.chain import append_step
from assay.science.extract import CURRENT_VERSION, extract_candidate
from assay.science.render import PROMPT_PROFILES, render_files
from assay.science.reprint import Repository


class ChainCell(Protocol):
    """What rendering a chain step needs of a cell (a planned cell, or a bundle's call)."""

    @property
    def subject(self) -> str: ...

    @property
    def arm(self) -> str: ...


class AnsweredCall(ChainCell, Protocol):
    """One call of a cell with its answer (a ``cells`` row, or a bundle's)."""

    @property
    def cell_id(self) -> str: ...

    @property
    def step(self) -> int: ...

    @property
    def status(self) -> str: ...

    @property
    def text(self) -> str | None: ...


def shown_repository(row: PromptRow, files: Mapping[str, str]) -> Repository:
    """The repository a prompt of ``row``'s profile shows of ``files``: the target, and the
    other files when the profile shows every file."""
    others = (
        {path: text for path, text in files.items() if path != row.target}
        if PROMPT_PROFILES[row.prompt_profile].show_all_files
        else {}
    )
    return Repository(target=files[row.target], others=others)


class ChainRenderer:
    """Step ``k`` of a chain: the arm's files with the candidates of steps 1…k-1 appended to
    the target under their step names, so later steps see the model's own earlier code. Uses
    only what the render stage recorded as visible: instruction, target path, files. Earlier
    answers are extracted by the plan's preregistered extraction version, each against the
    repository its own step showed."""

    def __init__(
        self, rows: Mapping[tuple[str, str], PromptRow], extraction: int = CURRENT_VERSION
    ) -> None:
        self.rows = rows
        self.extraction = extraction

    def files(self, cell: ChainCell, step: int, texts: Sequence[str]) -> dict[str, str] | None:
        """The files step ``step`` shows, or ``None`` when an earlier answer had no code."""
        row = self.rows[(cell.subject, cell.arm)]
        files: dict[str, str] = json.loads(row.files_json)
        for earlier, text in enumerate(texts[: step - 1], start=1):
            shown = shown_repository(row, files)
            candidate = extract_candidate(text, version=self.extraction, repository=shown)
            if candidate.source is None:
                return None
            files[row.target] = append_step(files[row.target], candidate.source, earlier)
        return files

    def arm_repository(self, cell: ChainCell) -> Repository:
        """What step 1 shows: the arm's files as rendered."""
        row = self.rows[(cell.subject, cell.arm)]
        return shown_repository(row, json.loads(row.files_json))

    def repository(self, cell: ChainCell, step: int, texts: Sequence[str]) -> Repository | None:
        files = self.files(cell, step, texts)
        return (
            None if files is None else shown_repository(self.rows[(cell.subject, cell.arm)], files)
        )

    def __call__(self, cell: ChainCell, step: int, texts: Sequence[str]) -> str | None:
        files = self.files(cell, step, texts)
        if files is None:
            return None
        row = self.rows[(cell.subject, cell.arm)]
        return render_files(
            row.instruction, files, row.target, PROMPT_PROFILES[row.prompt_profile]
        ).text


def shown_repositories(
    calls: Iterable[AnsweredCall], renderer: ChainRenderer
) -> dict[tuple[str, int], Repository]:
    """The repository every call's prompt showed, by (cell id, step): the arm's files at step
    1, and at chain step ``k`` the target with steps 1…k-1 appended as the run rendered them
    (the renderer's extraction version: the plan's preregistered one). A later step the run
    could not have rendered (an earlier answer without code: never sent, so never answered)
    gets the arm's files."""
    by_cell: dict[str, list[AnsweredCall]] = {}
    for call in calls:
        by_cell.setdefault(call.cell_id, []).append(call)
    shown: dict[tuple[str, int], Repository] = {}
    for cell_id, steps in by_cell.items():
        texts: list[str] = []
        for call in sorted(steps, key=lambda c: c.step):
            shown[(cell_id, call.step)] = renderer.repository(
                call, call.step, texts
            ) or renderer.arm_repository(call)
            if call.status == "completed" and call.text is not None:
                texts.append(call.text)
    return shown

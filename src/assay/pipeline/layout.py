"""Where each DVC stage is defined, and how to name it on DVC's command line.

The single stages (code, params, snapshot, subjects, render, send, report) and export are in
``dvc.yaml``: ``dvc repro`` without a target runs that file's stages and what they depend on, so
every stage nothing else reads (export) must be there. Every other stage that runs once per
scenario or per run, and the image stage, is in ``pipeline/<stage>/dvc.yaml`` (each such file
has a small lock of its own: DVC rewrites a stage's whole lock after every stage it runs). DVC
joins them all into one graph, and names a stage outside ``dvc.yaml`` by its file:
``pipeline/execute/dvc.yaml:execute@RUN``.
"""

from __future__ import annotations

ROOT_STAGES = frozenset(
    {"code", "params", "snapshot", "subjects", "render", "send", "report", "export"}
)


def stage_file(stage: str) -> str:
    """The dvc.yaml (relative to the repository root) that defines ``stage``."""
    return "dvc.yaml" if stage in ROOT_STAGES else f"pipeline/{stage}/dvc.yaml"


def address(stage: str, key: str | None = None) -> str:
    """``stage`` (for ``key``, a run or scenario) as ``dvc repro`` and ``dvc status`` name it."""
    name = stage if key is None else f"{stage}@{key}"
    return name if stage in ROOT_STAGES else f"{stage_file(stage)}:{name}"


def repro_command(api_key_env: str | None = None) -> str:
    """The command that reproduces the pipeline as the README runs it: through uv, and with the
    ``.env`` file when a run's provider key comes from there."""
    return "uv run --env-file .env dvc repro" if api_key_env else "uv run dvc repro"

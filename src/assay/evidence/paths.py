"""Where each stage writes: ``data/<stage>/<scenario or run>/<file>``.

Every path under ``data/`` is spelled here and nowhere else in Python (dvc.yaml declares the
same folders as stage outputs); the Parquet tables' folders and
file names are declared once, in :data:`assay.evidence.catalog.TABLES`.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path("data")

TRACKED_RESULTS = Path("reports")
"""Small, git-tracked results (metrics and plot data) that `dvc exp show` reads per revision."""


def stage_file(stage: str, key: str, name: str, data: Path = DATA) -> Path:
    """``data/<stage>/<key>/<name>``: the one shape every per-scenario and per-run file has."""
    return data / stage / key / name


def params_dir() -> Path:
    """The ``params`` stage's outputs: each section of params.yaml as a file (``<key>.json``)."""
    return DATA / "params"


def code_dir() -> Path:
    """The ``code`` stage's outputs: ``<stage>.json``, the digest of each stage's code."""
    return DATA / "code"


def resend_file(ledger_root: str | Path) -> Path:
    """``<ledger_root>/resend.json``: the free runs left with calls unanswered, each with a fresh
    token (``assay.pipeline.resend``); a dependency of the ``send`` stage, created by the
    ``params`` stage."""
    return Path(ledger_root) / "resend.json"


def resend_marker_file() -> Path:
    """``data/resend.txt``: where this workspace's ``resend.json`` is, written by the ``params``
    stage once it made that file. An output DVC does not cache (``cache: false``), so a copy of
    the workspace without the git-ignored ledger (``dvc exp run --temp``, a queued experiment)
    lacks it too, and DVC runs the params stage there, which makes ``resend.json`` before the
    send stage needs it: the send stage then says in one line why it may not send."""
    return DATA / "resend.txt"


def params_check_file() -> Path:
    """Written by the ``params`` stage once params.yaml is valid (its bytes never change); the
    stages that read no section depend on it, so they too run only after the check."""
    return params_dir() / "valid.txt"


def scenario_file(scenario: str) -> Path:
    return stage_file("subjects", scenario, "scenario.json")


def realised_scenarios() -> list[str]:
    """The scenarios the ``subjects`` stage realised (each has its ``scenario.json``), sorted."""
    return sorted(path.parent.name for path in (DATA / "subjects").glob("*/scenario.json"))


def sources_file(scenario: str, data: Path = DATA) -> Path:
    return stage_file("subjects", scenario, "sources.json", data)


SCENARIO_STAGES = ("subjects", "render")
"""The per-scenario stages whose outputs a run's later stages read besides its plan."""


def scenario_dir(stage: str, scenario: str, data: Path = DATA) -> Path:
    """``data/<stage>/<scenario>/``: one of :data:`SCENARIO_STAGES`' outputs for a scenario."""
    return data / stage / scenario


def run_inputs_dir(run: str, data: Path = DATA) -> Path:
    """``data/plan/<run>/inputs/``: the subjects and prompts a paid run was sent from, kept by
    the plan stage once an edit gave the run another plan (``assay.paid.seal``)."""
    return data / "plan" / run / "inputs"


def scenario_source(stage: str, run: str, scenario: str, data: Path = DATA) -> Path:
    """The ``subjects`` or ``render`` folder a run's stages read: the run's sealed copy when it
    was sent from an older version of its scenario, else the scenario's."""
    sealed = run_inputs_dir(run, data) / stage
    return sealed if sealed.is_dir() else scenario_dir(stage, scenario, data)


def provenance_file(scenario: str) -> Path:
    """Where each codebase subject's code comes from (project, version, sha256, file digests)."""
    return stage_file("subjects", scenario, "provenance.json")


def snapshot_dir(data: Path = DATA) -> Path:
    """The ``snapshot`` stage's slices of pinned public code, one folder per slice."""
    return data / "snapshot"


def image_record(kind: str = "standard", data: Path = DATA) -> Path:
    return data / "image" / f"{kind}.json"


def image_archive(kind: str = "standard") -> Path:
    """``docker save`` of exactly the recorded image (kept in DVC's cache by the image stage)."""
    return DATA / "image" / f"{kind}.tar"


def selftest_file(scenario: str) -> Path:
    return stage_file("selftest", scenario, "selftest.json")


def plan_file(run: str, data: Path = DATA) -> Path:
    return stage_file("plan", run, "plan.json", data)


def plan_hash_file(run: str, data: Path = DATA) -> Path:
    return stage_file("plan", run, "plan.sha256", data)


def replanned_file(run: str, data: Path = DATA) -> Path:
    """``data/plan/<run>/replanned.json``: a free run planned anew after it began under another
    plan (an edit changed its cells), and how its preregistration differs from that plan's
    (``assay.paid.preregistration.replanned_free_run``)."""
    return stage_file("plan", run, "replanned.json", data)


def next_plan_file(run: str, data: Path = DATA) -> Path:
    """``data/plan/<run>/next.json``: the plan the current inputs give a paid run that was sent
    under an older one (``assay.paid.seal``); it waits for a run id of its own."""
    return stage_file("plan", run, "next.json", data)


def authorization_file(run: str, data: Path = DATA) -> Path:
    return stage_file("authorize", run, "authorization.json", data)


def receipt_file(run: str, data: Path = DATA) -> Path:
    """The ``send`` stage's receipt of one run (``assay.evidence.rows.SendReceipt``)."""
    return stage_file("send", run, "receipt.json", data)


def report_dir(data: Path = DATA) -> Path:
    return data / "report"


def export_dir(run: str) -> Path:
    """The ``export`` stage's bundles of one run (``abstraction/`` and ``correctness/``)."""
    return DATA / "export" / run


def inspect_logs_dir(data: Path = DATA) -> Path:
    """The ``inspect_logs`` stage's output: every run as an Inspect eval log
    (``assay.inspect.logs``)."""
    return data / "inspect_logs"

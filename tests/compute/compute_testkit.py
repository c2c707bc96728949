"""Shared material of the compute tests: a real LocalCluster of worker processes, a scenario's
worth of cells, container listing, and work run in a thread while a test changes the cluster
(imported by name: the fixtures are in conftest.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import docker
from distributed import LocalCluster

from assay.evidence import CandidateRow
from assay.fixtures.model import Scenario
from assay.sandbox.selftest import KNOWN_WRONG
from tests.uses import uses


def start_cluster(
    workers: int, threads: int = 2, env: dict[str, str] | None = None
) -> LocalCluster:
    uses("cluster")
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=threads,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        env=env or {},
    )


def reference_candidates(scenario: Scenario, run: str = "cluster") -> list[CandidateRow]:
    """A scenario's worth of cells: both references and a known-wrong one on every arm."""
    rows: list[CandidateRow] = []
    for subject in scenario.subjects:
        sources = (subject.task.references.reused, subject.task.references.duplicated, KNOWN_WRONG)
        for arm in subject.arms:
            for repeat, source in enumerate(sources):
                rows.append(
                    CandidateRow(
                        run=run,
                        cell_id=f"{subject.id}/{arm.name}/r{repeat}",
                        subject=subject.id,
                        arm=arm.name,
                        repeat=repeat,
                        step=1,
                        execution_status="completed",
                        extract_status="code",
                        extraction_version=2,
                        source=source,
                    )
                )
    return rows


def own_containers(api: docker.APIClient, prefixes: list[str]) -> list[str]:
    names = [n.lstrip("/") for c in api.containers(all=True) for n in c["Names"]]
    return [n for n in names if any(n.startswith(p) for p in prefixes)]


def in_background(work: Callable[[], object]) -> tuple[threading.Thread, dict[str, object]]:
    """``work`` started in a thread; its outcome (``data`` or ``error``) once joined."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["data"] = work()
        except BaseException as exc:  # noqa: BLE001 - reported by the test's assertion
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome

"""Both ``dvc plots`` of the report stage, as real DVC renders them from the stage's declared
plots and the repository's templates: alone and under ``dvc plots diff`` across two revisions,
checked in the data DVC fills in and drawn offline in headless Chromium."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from assay.pipeline.report import write_all
from assay.report.kinds import ABSTRACTION
from tests.conftest import ROOT, Repo
from tests.report.browser import render_specs
from tests.report.evidence import ARMS, write_dose_evidence

pytestmark = [pytest.mark.dvc, pytest.mark.browser]

VERDICTS = "reports/plots/verdicts_by_arm.csv"
REUSE = "reports/plots/reuse_by_level.csv"


def _plots_repo(path: Path) -> Repo:
    """A git + DVC repo with the report stage's plots declarations and templates only."""
    repo = Repo(path)
    path.mkdir(parents=True)
    repo.git("init", "-q", "-b", "main")
    repo.dvc("init", "-q")
    shutil.copytree(ROOT / ".dvc" / "plots", path / ".dvc" / "plots")
    plots = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["report"]["plots"]
    repo.write("dvc.yaml", yaml.safe_dump({"stages": {"report": {"cmd": "true", "plots": plots}}}))
    return repo


def _revision(repo: Repo, tmp: Path, runs: tuple[str, ...], subjects: int) -> None:
    data = tmp / f"data-{len(runs)}-{subjects}"
    write_dose_evidence(data, runs, subjects)
    write_all(data, data / "report", repo.path / "reports", None)


def _shown(repo: Repo, *args: str) -> dict[str, dict]:
    shown = json.loads(repo.dvc("plots", *args, "--json").stdout)["data"]
    return {name: entries[0]["content"] for name, entries in shown.items()}


def _drawn(shown: dict[str, dict], tmp: Path) -> dict[str, dict[str, float]]:
    with render_specs({Path(name).stem: spec for name, spec in shown.items()}, tmp) as page:
        sizes = page.chart_sizes()
        assert page.console_errors == []
    return sizes


def test_plots_alone_and_under_diff(tmp_path: Path) -> None:
    repo = _plots_repo(tmp_path / "repo")
    _revision(repo, tmp_path, ("run-a", "run-b"), 4)
    repo.git("add", "-A")
    repo.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "commit", "-qm", "first")

    alone = _shown(repo, "show")
    verdicts = alone[VERDICTS]["data"]["values"]
    assert {(r["run"], r["arm"]) for r in verdicts} == {
        (run, arm) for run in ("run-a", "run-b") for arm in ARMS
    }
    assert all(r["verdict"] in ("reused", "duplicated") and int(r["cells"]) > 0 for r in verdicts)
    assert sum(int(r["cells"]) for r in verdicts) == 2 * 4 * len(ARMS)
    encoding = alone[VERDICTS]["spec"]["encoding"]
    assert (encoding["y"]["field"], encoding["x"]["field"], encoding["yOffset"]["field"]) == (
        "arm",
        "cells",
        "rev",
    )
    reuse = alone[REUSE]["data"]["values"]
    assert {(r["run"], int(r["level"])) for r in reuse} == {
        (run, lv) for run in ("run-a", "run-b") for lv in (0, 3, 10)
    }
    assert all(0 <= float(r["reuse_rate"]) <= 1 for r in reuse)
    sizes = _drawn(alone, tmp_path)
    assert sizes["verdicts_by_arm"]["bars"] == len(verdicts)
    assert sizes["reuse_by_level"]["lines"] == 2  # one line per run

    _revision(repo, tmp_path, ("run-a", "run-b"), 5)
    diff = _shown(repo, "diff", "HEAD")
    for name in (VERDICTS, REUSE):
        assert {r["rev"] for r in diff[name]["data"]["values"]} == {"HEAD", "workspace"}, name
    lines = diff[REUSE]["spec"]["encoding"]
    assert lines["detail"]["field"] == "rev" and lines["strokeDash"]["field"] == "rev"
    drawn = _drawn(diff, tmp_path)
    assert drawn["reuse_by_level"]["lines"] == 4, "one line per run and revision, not a zigzag"
    assert drawn["verdicts_by_arm"]["bars"] == len(diff[VERDICTS]["data"]["values"])


def test_dvc_plots_show_draws_offline_with_every_missing_state(tmp_path: Path) -> None:
    """Plain ``dvc plots show``, as docs/reports.md says, with the repository's configuration: the
    page it writes draws both plots from the inline template without a single request beyond
    the file, and the verdict plot's legend has one entry per outcome, missing states too."""
    from tests.report.browser import DVC_PLOTS_DRAWN, open_page
    from tests.report.evidence import write_missing_evidence

    repo = _plots_repo(tmp_path / "repo")
    shutil.copy(ROOT / ".dvc" / "config", repo.path / ".dvc" / "config")
    data = tmp_path / "data"
    write_dose_evidence(data)
    write_missing_evidence(data)
    write_all(data, repo.path / "data" / "report", repo.path / "reports", None)
    shown = repo.dvc("plots", "show")
    index = repo.path / "dvc_plots" / "index.html"
    assert index.as_uri() in shown.stdout
    html = index.read_text()
    assert "cdn.jsdelivr" not in html and "<script src=" not in html
    with open_page(index, ready=DVC_PLOTS_DRAWN) as page:
        assert page.console_errors == []
        assert all(url.startswith("file://") for url in page.requests), page.requests
        drawn = page.page.evaluate(
            "() => Object.fromEntries([...document.querySelectorAll('body > div[id]')].map(d => {"
            " const s = d.querySelector('svg, canvas').getBoundingClientRect();"
            " const labels = [...d.querySelectorAll('g.role-legend-label text')];"
            " return [d.id, {area: s.width * s.height, legend: labels.map(t => t.textContent)}]; }))"
        )
        assert len(drawn) == 2 and all(d["area"] > 40_000 for d in drawn.values()), drawn
        (verdicts,) = [d for name, d in drawn.items() if "verdicts" in name]
        (levels,) = [d for name, d in drawn.items() if "reuse" in name]
        # the stacked verdicts: the template's whole vocabulary in legend order (no row
        # dropped for want of a colour); the lines: no run without a scored cell
        assert verdicts["legend"][:10] == list(ABSTRACTION.outcomes), drawn
        assert "paid-wait" not in levels["legend"] and "run-a" in levels["legend"], drawn
        page.screenshot("dvc-plots-show.png")
    plotted = _shown(repo, "show")[VERDICTS]
    legend = plotted["spec"]["encoding"]["color"]["scale"]["domain"]
    assert {r["verdict"] for r in plotted["data"]["values"]} <= set(legend)
    assert {"not-run", "excluded", "halted", "no-candidate"} <= {
        r["verdict"] for r in plotted["data"]["values"]
    }
    levels = _shown(repo, "show")[REUSE]["data"]["values"]
    assert [r for r in levels if r["run"] == "paid-wait" and r["reuse_rate"] == ""], levels

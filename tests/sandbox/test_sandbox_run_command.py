"""``assay sandbox-run``: one JSON object on the last line, exit 0 whatever the status, 2 on bad
arguments; a real signal mid-run leaves no container behind; an engine without the recorded image
gets it from the image stage's archive."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import docker
import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, RIGHT, WRONG, live_containers

from assay import evidence
from assay.cli import main
from assay.sandbox.image import ensure_image, image_present, save_archive
from assay.sandbox.policy import CONTAINER_NAME_PREFIX
from tests.cancellation import signal_once_running

SLEEPER = "import time\n\n\ndef implement(value):\n    time.sleep(60)\n"


def write_inputs(
    folder: Path, candidate: str, cases: list[object], expected: list[object]
) -> list[str]:
    repo = folder / "repo"
    for source in CORPUS_FILES:
        (repo / source.path).parent.mkdir(parents=True, exist_ok=True)
        (repo / source.path).write_text(source.text, encoding="utf-8")
    (folder / "candidate.py").write_text(candidate, encoding="utf-8")
    (folder / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    (folder / "expected.json").write_text(json.dumps(expected), encoding="utf-8")
    return [
        "sandbox-run",
        "--repo", str(repo),
        "--target", CORPUS_TARGET,
        "--candidate", str(folder / "candidate.py"),
        "--cases", str(folder / "cases.json"),
        "--expected", str(folder / "expected.json"),
    ]  # fmt: skip


@pytest.mark.docker
@pytest.mark.parametrize(("candidate", "status"), [(RIGHT, "correct"), (WRONG, "incorrect")])
def test_prints_one_json_object_and_exits_zero(
    candidate: str,
    status: str,
    sandbox_image: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = write_inputs(tmp_path, candidate, [1, 2], [3, 5]) + ["--image", sandbox_image]
    assert main(argv) == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["status"] == status
    assert [case["index"] for case in last["cases"]] == [0, 1]
    assert "reason" in last


@pytest.mark.docker
def test_an_engine_without_the_recorded_image_loads_it_from_the_archive(
    second_engine: str,
    sandbox_image: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # what the image stage leaves in a checkout: data/image/standard.{json,tar}
    record = ensure_image("standard", tmp_path / evidence.image_record("standard"))
    assert record.image_id == sandbox_image
    save_archive(record, tmp_path / evidence.image_archive("standard"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCKER_HOST", second_engine)  # a private engine without any image
    private = docker.APIClient(base_url=second_engine)
    argv = write_inputs(tmp_path, RIGHT, [1, 2], [3, 5])
    for extra in ([], ["--image", sandbox_image]):  # the default record, then a recorded id
        assert not image_present(private, sandbox_image)
        assert main(argv + extra) == 0
        assert json.loads(capsys.readouterr().out.splitlines()[-1])["status"] == "correct"
        assert private.inspect_image(sandbox_image)["Id"] == sandbox_image
        private.remove_image(sandbox_image, force=True)


@pytest.mark.docker
def test_missing_image_still_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = write_inputs(tmp_path, RIGHT, [1], [3]) + ["--image", "sha256:" + "0" * 64]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["status"] == "evaluator-failure"


@pytest.mark.parametrize(
    "breakage",
    [
        "missing-candidate",
        "cases-not-json",
        "cases-not-list",
        "length-mismatch",
        "unknown-target",
        "no-repo",
    ],
)
def test_bad_arguments_exit_2(breakage: str, tmp_path: Path) -> None:
    argv = write_inputs(tmp_path, RIGHT, [1], [3]) + ["--image", "sha256:" + "0" * 64]
    if breakage == "missing-candidate":
        (tmp_path / "candidate.py").unlink()
    elif breakage == "cases-not-json":
        (tmp_path / "cases.json").write_text("[1,", encoding="utf-8")
    elif breakage == "cases-not-list":
        (tmp_path / "cases.json").write_text('{"a": 1}', encoding="utf-8")
    elif breakage == "length-mismatch":
        (tmp_path / "expected.json").write_text("[3, 4]", encoding="utf-8")
    elif breakage == "unknown-target":
        argv[argv.index("--target") + 1] = "pkg/absent.py"
    else:
        argv[argv.index("--repo") + 1] = str(tmp_path / "absent")
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2


@pytest.mark.docker
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_signal_mid_run_leaves_no_container(
    signum: signal.Signals, sandbox_image: str, docker_api: docker.APIClient, tmp_path: Path
) -> None:
    argv = write_inputs(tmp_path, SLEEPER, [1, 2, 3], [3, 5, 7]) + ["--image", sandbox_image]
    process = subprocess.Popen([sys.executable, "-m", "assay.cli", *argv])
    prefix = f"{CONTAINER_NAME_PREFIX}{process.pid}-"
    returncode = signal_once_running(
        process,
        lambda: bool(live_containers(docker_api, prefix)),
        start_seconds=30,
        settle_seconds=1.0,  # the candidate is running its sleep now
        exit_seconds=30,
        signum=signum,
    )
    if signum != signal.SIGKILL:  # cancellation waits for forced removal
        assert returncode == 128 + signum
        assert live_containers(docker_api, prefix) == []
        return
    deadline = time.monotonic() + 15  # killed outright: the lifeline ends, the daemon removes it
    while live_containers(docker_api, prefix) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_containers(docker_api, prefix) == []

"""`dvc exp run` with a target on a finished study (a copy of the shared one): in the workspace,
with `--temp`, and queued with `--queue` then run with `--run-all`. The send stage reads the
invoking command line to send only the runs asked for (assay.pipeline.requested); `dvc exp
run`'s arguments have no `--glob`, which once crashed it with an AttributeError. Each sends
what was asked (or, for a queued experiment, whose command line names no target, every run)
and never prints a traceback."""

from __future__ import annotations

import pytest

from assay.pipeline.layout import address
from tests.conftest import Repo

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

RUN = "sim-follower-v1"
TARGET = address("execute", RUN)


def _commit(repo: Repo) -> None:
    repo.git("add", "-A")
    repo.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "commit", "-qm", "studied")


def _no_traceback(done) -> str:
    output = done.stdout + done.stderr
    assert "Traceback" not in output and "AttributeError" not in output, output
    return output


def test_dvc_exp_run_with_a_target_sends_what_was_asked(study_copy: Repo) -> None:
    repo = study_copy
    _commit(repo)
    command = f"dvc exp run -S models.sim-follower.seed=2 {TARGET}"

    # in a temporary workspace first (it leaves this one as it is)
    temp = repo.dvc("exp", "run", "--temp", "-n", "temp-seed", "-S",
                    "models.sim-follower.seed=5", TARGET, timeout=1800)  # fmt: skip
    _no_traceback(temp)
    shown = repo.dvc("exp", "show", "--csv").stdout
    assert "temp-seed" in shown, shown

    # queued, then run with every queued experiment
    repo.dvc("exp", "run", "--queue", "-n", "queued-seed", "-S", "models.sim-follower.seed=3",
             TARGET)  # fmt: skip
    _no_traceback(repo.dvc("exp", "run", "--run-all", timeout=1800))
    queue = repo.dvc("queue", "status").stdout
    assert "queued-seed" in queue and "Success" in queue and "Failed" not in queue, queue

    # in the workspace, as the issue ran it: the run asked for is sent, the others are left
    done = repo.dvc(*command.split()[1:], timeout=1800)
    output = _no_traceback(done)
    assert f"{RUN}: " in output
    assert (
        f"sim-follower-dose: not sent by this stage: `{command}` asks for other runs" in output
    ), output

"""A container created from the policy has every flag in the daemon's own view of it."""

from __future__ import annotations

import docker
import pytest

from assay.sandbox import policy
from assay.sandbox.engine_api import remove_container
from assay.sandbox.runner import container_name

MIB = 1024 * 1024


@pytest.mark.docker
@pytest.mark.parametrize(("profile", "tmp_bytes"), [("standard", 1 * MIB), ("large", 4 * MIB)])
def test_created_container_has_every_flag(
    profile: policy.RunProfile, tmp_bytes: int, sandbox_image: str, docker_api: docker.APIClient
) -> None:
    name = container_name()
    docker_api.create_container(
        sandbox_image,
        host_config=docker_api.create_host_config(**policy.host_config_options(profile)),
        **policy.container_options(profile, name, {"assay.sandbox": "test"}),
    )
    try:
        inspected = docker_api.inspect_container(name)
    finally:
        remove_container(docker_api, name)
    host = inspected["HostConfig"]
    config = inspected["Config"]

    assert inspected["Mounts"] == [] and not host.get("Binds") and not host.get("Mounts")
    assert host["NetworkMode"] == "none" and config.get("NetworkDisabled") is True
    assert host["IpcMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["Tmpfs"] == {"/tmp": f"rw,noexec,nosuid,nodev,mode=1777,size={tmp_bytes}"}
    assert config["User"] == "65534:65534"
    assert host["CapDrop"] == ["ALL"] and not host.get("CapAdd")
    assert host["SecurityOpt"] == ["no-new-privileges:true"]  # no seccomp override: default profile
    assert host["Privileged"] is False
    assert host["Memory"] == 64 * MIB and host["MemorySwap"] == 64 * MIB
    assert host["NanoCpus"] == 500_000_000
    assert host["PidsLimit"] == 32
    ulimits = {u["Name"]: (u["Soft"], u["Hard"]) for u in host["Ulimits"]}
    assert ulimits == {
        "nofile": (64, 64),
        "fsize": (tmp_bytes, tmp_bytes),
        "core": (0, 0),
        "msgqueue": (0, 0),
    }
    assert host["Sysctls"] == {  # not one SysV IPC object or POSIX message queue can be made
        "kernel.shmmni": "0",
        "kernel.msgmni": "0",
        "kernel.sem": "0 0 0 0",
        "fs.mqueue.queues_max": "0",
    }
    assert host["LogConfig"]["Type"] == "none"
    assert host["AutoRemove"] is True
    assert not host.get("Init")
    assert not host.get("Devices") and not host.get("PortBindings")
    assert config["OpenStdin"] is True and config["StdinOnce"] is True and config["Tty"] is False
    assert config["Cmd"] == list(policy.SUPERVISOR_COMMAND)
    assert not [e for e in config.get("Env") or [] if not e.startswith(("PATH=", "LC_ALL=", "TZ="))]
    assert inspected["Image"] == sandbox_image
    assert name.startswith(policy.CONTAINER_NAME_PREFIX)


def test_profiles_match_the_study() -> None:
    assert policy.PROFILES["standard"].case_deadline_seconds == 5.0
    assert policy.PROFILES["large"].case_deadline_seconds == 15.0
    assert policy.STARTUP_DEADLINE_SECONDS == 10.0
    assert policy.OUTPUT_CAP_BYTES == 65_536

"""The hardening policy of every correctness container, as named constants.

Every value here is a requirement of the study (the seed's "Correctness sandbox" section and
issue 4): a test creates a container from :func:`container_config` and asserts each flag in
the daemon's own view of it. Nothing else in assay chooses a container flag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

RunProfile = Literal["standard", "large"]

MIB: Final = 1024 * 1024

NETWORK_MODE: Final = "none"
IPC_MODE: Final = "none"
"""A private IPC namespace without /dev/shm (otherwise Docker mounts a writable 64 MiB one even
on a read-only root)."""
IPC_SYSCTLS: Final = {
    "kernel.shmmni": "0",
    "kernel.msgmni": "0",
    "kernel.sem": "0 0 0 0",
    "fs.mqueue.queues_max": "0",
}
"""Limits of the container's own IPC namespace: not one SysV shared memory segment, message
queue or semaphore set, nor POSIX message queue, can be created (``ENOSPC``), so no case can
leave memory-holding objects or answers behind for a later case. The supervisor still removes
any it finds between cases and checks the namespace empty; the ready record reports these values
and the host refuses a container where they are not in force."""
MSGQUEUE_LIMIT: Final = 0
"""``RLIMIT_MSGQUEUE`` bytes: POSIX message queues are charged per UID across the whole host."""
READ_ONLY_ROOT: Final = True
SANDBOX_USER: Final = "65534:65534"
CAP_DROP: Final = ("ALL",)
SECURITY_OPT: Final = ("no-new-privileges:true",)
"""Only no-new-privileges: leaving seccomp unset keeps Docker's default seccomp profile."""
MEMORY_BYTES: Final = 64 * MIB
MEMORY_SWAP_BYTES: Final = 64 * MIB
"""Equal to the memory limit: no swap on top of it."""
NANO_CPUS: Final = 500_000_000
"""Half a CPU."""
PIDS_LIMIT: Final = 32
NOFILE_LIMIT: Final = 64
CORE_LIMIT: Final = 0
TMP_MOUNT_OPTIONS: Final = "rw,noexec,nosuid,nodev,mode=1777"
LOG_DRIVER: Final = "none"
"""Container output is read through the attach stream only, never stored by the daemon."""

STARTUP_DEADLINE_SECONDS: Final = 10.0
"""From container creation to the supervisor's authenticated ready record."""
OUTPUT_CAP_BYTES: Final = 65_536
"""Combined stdout+stderr bytes: of the container to the host, and of each case's child."""
RECORD_SLACK_SECONDS: Final = 60.0
"""Host-side allowance per case beyond the case's wall-clock ceiling: kill and reap (up to the
supervisor's 10 s wait for killed processes), remove IPC objects, wipe /tmp however many entries
the case made, fingerprint, report. Only a hung supervisor ever uses it up."""
FRESH_FINGERPRINT: Final = {
    "processes": [1],
    "tmp": [],
    "mqueue": [],
    "pts": ["ptmx"],
    "sysv_shm": [],
    "sysv_msg": [],
    "sysv_sem": [],
}
"""A fresh container as the supervisor's ``fingerprint()`` lists it: the supervisor alone, an
empty /tmp, no message queue, no pseudo-terminal, no SysV IPC object. The ready record's must
equal it, and before every later case the container must still equal its ready fingerprint."""
CPU_SHARE: Final = NANO_CPUS / 1_000_000_000
"""The CPU a container may use per second of wall-clock time."""
WALL_CEILING_FACTOR: Final = 120.0
"""A case ends after ``deadline × WALL_CEILING_FACTOR`` of wall-clock time whatever the load
(10 minutes for 5 s); ended that way it is ``starved`` (missing evidence), never ``timeout``.
Only a starved case gets near it: a busy candidate runs out of CPU and a sleeping one out of
its own time long before. (Measured on a shared 2-core host where Docker's cgroup competed
with ~25 host processes: 1.5 s of CPU took 55 s of wall-clock time.)"""

# A loaded host must never turn a correct candidate into a timed-out one. The supervisor
# therefore measures a case's deadline in time the candidate could actually use, and ends the
# case as ``timeout`` when any of these runs out:
#
# * CPU: the container's CPU time since the case started passes ``deadline × CPU_SHARE``
#   (the CPU the candidate gets within its deadline on an idle host: 2.5 s for 5 s at half a
#   CPU), read from the container's own cgroup;
# * own time: wall-clock time minus the time the candidate's process waited for a CPU
#   (``/proc/<pid>/schedstat``) passes the deadline, so a candidate that sleeps or blocks
#   still ends at the deadline;
# * ceiling: wall-clock time passes ``deadline × WALL_CEILING_FACTOR`` before either of those:
#   the host starved the case, which makes the result an evaluator failure (``host-overloaded``,
#   missing evidence), never ``incorrect``.
#
# On an idle host the first two end a busy or sleeping candidate at the same moment a plain
# wall-clock deadline would; on a loaded one, waiting for a CPU does not count.


def cpu_budget_seconds(deadline: float) -> float:
    return deadline * CPU_SHARE


def wall_ceiling_seconds(deadline: float) -> float:
    return deadline * WALL_CEILING_FACTOR


SUPERVISOR_COMMAND: Final = ("/usr/bin/python3", "-s", "-P", "-B", "/opt/assay/supervisor.py")
CONTAINER_NAME_PREFIX: Final = "assay-sandbox-"


@dataclass(frozen=True)
class ProfileLimits:
    tmp_bytes: int
    case_deadline_seconds: float

    @property
    def case_ceiling_seconds(self) -> float:
        """The most wall-clock time one case can take, however loaded the host."""
        return wall_ceiling_seconds(self.case_deadline_seconds)


PROFILES: Final[dict[RunProfile, ProfileLimits]] = {
    "standard": ProfileLimits(tmp_bytes=1 * MIB, case_deadline_seconds=5.0),
    "large": ProfileLimits(tmp_bytes=4 * MIB, case_deadline_seconds=15.0),
}


def host_config_options(profile: RunProfile) -> dict[str, Any]:
    """Keyword arguments for ``APIClient.create_host_config``: the whole runtime policy."""
    from docker.types import Ulimit  # loaded here: records that name a profile need no SDK

    limits = PROFILES[profile]
    return {
        "network_mode": NETWORK_MODE,
        "ipc_mode": IPC_MODE,
        "sysctls": dict(IPC_SYSCTLS),
        "read_only": READ_ONLY_ROOT,
        "tmpfs": {"/tmp": f"{TMP_MOUNT_OPTIONS},size={limits.tmp_bytes}"},
        "cap_drop": list(CAP_DROP),
        "security_opt": list(SECURITY_OPT),
        "mem_limit": MEMORY_BYTES,
        "memswap_limit": MEMORY_SWAP_BYTES,
        "nano_cpus": NANO_CPUS,
        "pids_limit": PIDS_LIMIT,
        "ulimits": [
            Ulimit(name="nofile", soft=NOFILE_LIMIT, hard=NOFILE_LIMIT),
            Ulimit(name="fsize", soft=limits.tmp_bytes, hard=limits.tmp_bytes),
            Ulimit(name="core", soft=CORE_LIMIT, hard=CORE_LIMIT),
            Ulimit(name="msgqueue", soft=MSGQUEUE_LIMIT, hard=MSGQUEUE_LIMIT),
        ],
        "log_config": {"Type": LOG_DRIVER, "Config": {}},
        "auto_remove": True,
        "privileged": False,
        "init": False,
        "binds": None,
        "mounts": None,
    }


def container_options(profile: RunProfile, name: str, labels: dict[str, str]) -> dict[str, Any]:
    """Keyword arguments for ``APIClient.create_container`` except ``image`` and ``host_config``.

    Stdin stays open for exactly one attached client: the payload arrives on it, and its end
    (the host going away) tells the supervisor to stop.
    """
    return {
        "command": list(SUPERVISOR_COMMAND),
        "name": name,
        "user": SANDBOX_USER,
        "stdin_open": True,  # with detach=False, docker-py also sets StdinOnce
        "tty": False,
        "network_disabled": True,
        "environment": None,
        "working_dir": "/",
        "labels": labels,
    }


def describe() -> dict[str, Any]:
    """Every runtime policy value: each profile's container flags, limits and deadline, the
    clock, the caps and a fresh container's fingerprint. The plan binds it (a different policy
    at evaluation time is missing evidence, never a verdict)."""
    described: dict[str, Any] = {
        profile: {
            **{k: v for k, v in host_config_options(profile).items() if k != "ulimits"},
            "ulimits": [dict(u) for u in host_config_options(profile)["ulimits"]],
            "case_deadline_seconds": PROFILES[profile].case_deadline_seconds,
        }
        for profile in PROFILES
    }
    described["user"] = SANDBOX_USER
    described["command"] = list(SUPERVISOR_COMMAND)
    described["clock"] = {
        "cpu_share": CPU_SHARE,
        "wall_ceiling_factor": WALL_CEILING_FACTOR,
        "startup_deadline_seconds": STARTUP_DEADLINE_SECONDS,
        "output_cap_bytes": OUTPUT_CAP_BYTES,
        "record_slack_seconds": RECORD_SLACK_SECONDS,
    }
    described["fresh_fingerprint"] = FRESH_FINGERPRINT
    return described


def policy_version() -> str:
    """A short digest of :func:`describe`: correctness results are kept per image and per
    policy version."""
    import hashlib
    import json

    canonical = json.dumps(describe(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]

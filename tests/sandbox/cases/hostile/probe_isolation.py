import os
import socket


def _can(action):
    try:
        action()
    except OSError:
        return False
    return True


def _connect():
    socket.create_connection(("1.1.1.1", 53), timeout=1).close()


def _write_root():
    with open("/etc/escape", "w") as handle:
        handle.write("x")


def implement(value):
    status = dict(
        line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line
    )
    return {
        "uid": os.getuid(),
        "gid": os.getgid(),
        "cap_eff": status["CapEff"].strip(),
        "no_new_privs": status["NoNewPrivs"].strip(),
        "seccomp": status["Seccomp"].strip(),
        "supervisor_fds": _can(lambda: os.listdir("/proc/1/fd")),
        "supervisor_environ": _can(lambda: open("/proc/1/environ", "rb").read()),
        "supervisor_mem": _can(lambda: open("/proc/1/mem", "rb").close()),
        "network": _can(_connect),
        "write_root": _can(_write_root),
        "dev_shm": os.path.exists("/dev/shm"),
        "hash_seed": os.environ.get("PYTHONHASHSEED"),
        "tz": os.environ.get("TZ"),
        "oom_score_adj": int(open("/proc/self/oom_score_adj").read()),
        "input": value,
    }

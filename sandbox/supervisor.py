"""The sandbox supervisor: PID 1 of the correctness container (standard library only).

Protocol
--------
stdin (from the host, never argv or the environment)::

    <decimal length>\\n<payload: UTF-8 JSON object of that many bytes>

The payload carries the per-run secret, the limits, and one candidate: its combined repository
files, the module to import, its case inputs (never the expected values) and its answer cap.
Stdin then stays open as the host's *lifeline*: end of file means the host is gone, and the
supervisor kills everything and exits (the container is auto-removed).

stdout (to the host): one record per line, ``<hex HMAC-SHA256(secret, body)> <body JSON>``.
Bodies carry a sequence number: ``ready`` (before any candidate code runs, with the case count,
the container's fingerprint and its IPC limits), one ``case`` per input in order (with its
index and how the cleanup after it went), then ``done``. Any other byte on the stream is
tampering.

Each case runs in a fresh child Python (``case_child.py``, which raises its own
``oom_score_adj`` first: /proc/self files of a non-dumpable process belong to root, so the
forked child cannot write it before exec) with a fixed environment, its own session, its
stdout/stderr drained under the output cap and never parsed, and one answer pipe.

Between cases nothing a case made survives: after the child exits, times out or floods, every
process of the container except this one is killed and reaped, every SysV IPC object and POSIX
message queue is removed (the policy's IPC limits of zero forbid creating any; this is the
second line), and /tmp is emptied one directory descriptor at a time, so no depth, name length
or mode stops it. Then the container's :func:`fingerprint` must equal the one it had before the
first case. If it does not, the case's record says so (``cleanup``): ``residue`` when something
the case made is still there (the case is charged with it), ``unverified`` when the state
cannot be read or a killed process did not end (not the case's doing); either way this
container runs no further case, and the host runs the remaining ones in a fresh container.

A case's deadline counts only time the candidate could use (see ``CaseClock``): the
container's CPU time against the CPU budget, and wall-clock time minus the time the candidate
waited for a CPU against the deadline, under a fixed wall-clock ceiling. A loaded host slows a
case down but cannot time it out.

The supervisor is non-dumpable, so a child of the same UID cannot open ``/proc/1/fd``,
``/proc/1/mem`` or ``/proc/1/environ`` (the secret stays here), nor ptrace it; as PID 1 of its
namespace it ignores every signal a child can send it.
"""

import contextlib
import ctypes
import hashlib
import hmac
import json
import os
import platform
import re
import resource
import select
import signal
import stat
import sys
import time

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3
CHILD_SCRIPT = "/opt/assay/case_child.py"
REPO_DIR = "/tmp/repo"
TMP_DIR = "/tmp"
MAX_PAYLOAD = 32 * 1024 * 1024
ANSWER_MAGIC = b"ASSAY-ANSWER "
CHILD_ENV = {
    "PYTHONHASHSEED": "0",
    "TZ": "UTC",
    "LC_ALL": "C.UTF-8",
    "LANG": "C.UTF-8",
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
}
MESSAGE_CHARS = 200
"""An exception message is cut to this many characters (local evidence, never published)."""
EXCEPTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,127}$")
KILL_WAIT_SECONDS = 10.0
"""How long killed processes may take to end before the cleanup counts as unverified."""
POLL_SECONDS = 0.05
CGROUP_V2_CPU_STAT = "/sys/fs/cgroup/cpu.stat"
CGROUP_V1_CPU_USAGE = "/sys/fs/cgroup/cpuacct/cpuacct.usage"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
SYSVIPC_DIR = "/proc/sysvipc"
MQUEUE_DIR = "/dev/mqueue"
PTS_DIR = "/dev/pts"
SYSV_KINDS = ("shm", "msg", "sem")
IPC_RMID = 0
IPC_LIMITS = ("kernel.shmmni", "kernel.msgmni", "kernel.sem", "fs.mqueue.queues_max")
"""The IPC namespace's limits the ready record reports (the host checks them against the
policy's sysctls: zero objects of any kind may be created)."""
LIBC = ctypes.CDLL(None, use_errno=True)


class HostGone(Exception):
    """The lifeline (stdin) reached end of file: the host stopped listening."""


def make_non_dumpable():
    if LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")
    if LIBC.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(0, "process is still dumpable")


def status_field(name):
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key == name:
                return value.strip()
    return ""


def read_exactly(fd, size):
    chunks = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise EOFError("stdin ended inside the payload")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_payload():
    header = b""
    while not header.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte or len(header) > 16:
            raise EOFError("no payload header")
        header += byte
    size = int(header)
    if not 0 < size <= MAX_PAYLOAD:
        raise ValueError("payload size out of range")
    return json.loads(read_exactly(0, size).decode("utf-8"))


class Channel:
    """Authenticated records to the host on fd 1."""

    def __init__(self, secret):
        self.secret = secret
        self.seq = 0

    def send(self, kind, **fields):
        body = dict(fields, kind=kind, seq=self.seq)
        data = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
        mac = hmac.new(self.secret, data, hashlib.sha256).hexdigest().encode()
        line = mac + b" " + data + b"\n"
        view = memoryview(line)
        while view:
            view = view[os.write(1, view) :]
        self.seq += 1


def clear_files(fd):
    """Unlink every entry of the directory ``fd`` except its subdirectories; their names."""
    subdirectories = []
    for name in os.listdir(fd):
        try:
            if stat.S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                subdirectories.append(name)
            else:
                os.unlink(name, dir_fd=fd)
        except OSError:
            pass  # the fingerprint after the cleanup shows whatever is left
    return subdirectories


def wipe_tmp():
    """Empty /tmp however the case left it: any depth, any name length, any mode.

    Iterative, holding one directory descriptor at a time and naming every entry relative to
    it (never a path), so neither the recursion limit, the descriptor limit nor PATH_MAX can
    stop it. A directory is made accessible (its owner is this UID) before it is entered.
    """
    fd = os.open(TMP_DIR, DIRECTORY_FLAGS)
    try:
        parents = []  # (name of the directory ``fd`` is, its parent's subdirectories left)
        pending = clear_files(fd)
        while pending or parents:
            if pending:
                name = pending.pop()
                try:
                    os.chmod(name, 0o700, dir_fd=fd)  # a directory (no process can swap it)
                    child = os.open(name, DIRECTORY_FLAGS, dir_fd=fd)
                except OSError:
                    continue
                parents.append((name, pending))
                fd, previous = child, fd
                os.close(previous)
                pending = clear_files(fd)
            else:
                name, pending = parents.pop()
                parent = os.open("..", DIRECTORY_FLAGS, dir_fd=fd)
                fd, previous = parent, fd
                os.close(previous)
                with contextlib.suppress(OSError):  # the fingerprint shows what is left
                    os.rmdir(name, dir_fd=fd)
    finally:
        os.close(fd)


def sysv_ids(kind):
    """The ids of every SysV IPC object of ``kind`` (shm, msg, sem) in this IPC namespace."""
    with open(f"{SYSVIPC_DIR}/{kind}", encoding="ascii") as listing:
        rows = listing.read().splitlines()[1:]
    return sorted(int(row.split()[1]) for row in rows if row.strip())


def remove_ipc_objects():
    """Remove every SysV shared memory segment, message queue and semaphore set, and every
    POSIX message queue. Every case runs as this UID, so it created them all: IPC_RMID needs
    only that (whatever owner or mode the case set), and /dev/mqueue is sticky, not locked."""
    removers = {
        "shm": lambda ident: LIBC.shmctl(ident, IPC_RMID, None),
        "msg": lambda ident: LIBC.msgctl(ident, IPC_RMID, None),
        "sem": lambda ident: LIBC.semctl(ident, 0, IPC_RMID),
    }
    for kind, remove in removers.items():
        for ident in sysv_ids(kind):
            remove(ident)
    fd = os.open(MQUEUE_DIR, DIRECTORY_FLAGS)
    try:
        for name in os.listdir(fd):
            with contextlib.suppress(OSError):  # the fingerprint shows what is left
                os.unlink(name, dir_fd=fd)
    finally:
        os.close(fd)


def fingerprint():
    """What a case could leave behind, as listings (OSError if any cannot be read): the
    processes, /tmp, the POSIX message queues, the pseudo-terminals and each kind of SysV IPC
    object. A fresh container's is ``processes [1]``, ``pts ['ptmx']`` and nothing else."""
    state = {
        "processes": sorted(int(name) for name in os.listdir("/proc") if name.isdigit()),
        "tmp": sorted(os.listdir(TMP_DIR)),
        "mqueue": sorted(os.listdir(MQUEUE_DIR)),
        "pts": sorted(os.listdir(PTS_DIR)),
    }
    for kind in SYSV_KINDS:
        state[f"sysv_{kind}"] = sysv_ids(kind)
    return state


def ipc_limits():
    """This IPC namespace's limits (:data:`IPC_LIMITS`), whitespace normalised."""
    limits = {}
    for name in IPC_LIMITS:
        with open("/proc/sys/" + name.replace(".", "/"), encoding="ascii") as value:
            limits[name] = " ".join(value.read().split())
    return limits


def clean_up(fresh):
    """After a case (its processes already killed): remove what it may have made, then compare
    the fingerprint with ``fresh``. ``("clean", [])``; ``("residue", keys)`` when something the
    case made is still there; ``("unverified", keys)`` when the state cannot be read or a killed
    process has not ended (SIGKILL from PID 1 always ends a process: not the case's doing)."""
    for step in (remove_ipc_objects, wipe_tmp):
        with contextlib.suppress(Exception):  # whatever failed, the fingerprint decides
            step()
    try:
        now = fingerprint()
    except OSError:
        return "unverified", []
    left = sorted(key for key in fresh if now.get(key) != fresh[key])
    if not left:
        return "clean", []
    return ("unverified" if "processes" in left else "residue"), left


def write_repository(files):
    for path, text in files:
        full = os.path.join(REPO_DIR, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)


def other_pids():
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != 1]


def reap_all(statuses):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        statuses[pid] = status


def kill_everything(statuses):
    """Kill and reap every process in the container but this one, waiting up to
    :data:`KILL_WAIT_SECONDS` for them to end (the fingerprint shows any that did not)."""
    end = time.monotonic() + KILL_WAIT_SECONDS
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        reap_all(statuses)
        if not other_pids() or time.monotonic() > end:
            return
        time.sleep(0.005)


def spawn_child(stdin_r, stdout_w, stderr_w, answer_w):
    pid = os.fork()
    if pid == 0:  # in the child: only async-signal-safe work until exec
        try:
            os.setsid()
            os.dup2(stdin_r, 0)
            os.dup2(stdout_w, 1)
            os.dup2(stderr_w, 2)
            os.dup2(answer_w, 3)
            for fd in range(4):
                os.set_inheritable(fd, True)
            os.closerange(4, 65536)
            os.chdir(REPO_DIR)
            os.execve(sys.executable, [sys.executable, "-s", "-P", "-B", CHILD_SCRIPT], CHILD_ENV)
        finally:
            os._exit(127)
    return pid


def container_cpu_ns():
    """CPU time of every process in this container (its cgroup, v2 or v1), or None."""
    try:
        with open(CGROUP_V2_CPU_STAT, encoding="ascii") as stat_file:
            for line in stat_file:
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) * 1000
    except (OSError, ValueError):
        pass
    try:
        with open(CGROUP_V1_CPU_USAGE, encoding="ascii") as usage:
            return int(usage.read())
    except (OSError, ValueError):
        return None


def process_cpu_ns(pid):
    """CPU time of ``pid`` and its reaped children (``/proc/<pid>/stat``); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat_file:
            fields = stat_file.read().rpartition(")")[2].split()
        ticks = sum(int(field) for field in fields[11:15])  # utime stime cutime cstime
    except (OSError, ValueError):
        return 0
    return ticks * 1_000_000_000 // CLOCK_TICKS


def run_delay_ns(pid):
    """How long ``pid`` has waited on a run queue for a CPU (``/proc/<pid>/schedstat``)."""
    try:
        with open(f"/proc/{pid}/schedstat", encoding="ascii") as schedstat:
            return int(schedstat.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


class CaseClock:
    """Whether a case has used up its deadline, counting only time the candidate could use.

    The case times out when the container's CPU time since the start passes ``cpu_budget``, or
    when wall-clock time minus the time the candidate waited for a CPU passes ``deadline`` (a
    sleeping or blocked candidate still ends at its deadline). When wall-clock time passes
    ``ceiling`` first, the host starved the case: that is reported as ``starved``, which the
    host records as missing evidence, never as ``incorrect``. Without a readable cgroup the
    candidate's own process CPU time stands in for the container's.
    """

    def __init__(self, pid, deadline, cpu_budget, ceiling):
        self.pid = pid
        self.deadline = deadline
        self.cpu_budget_ns = int(cpu_budget * 1_000_000_000)
        self.ceiling = ceiling
        self.cgroup = container_cpu_ns() is not None
        self.start = time.monotonic()
        self.cpu_start = self.cpu_ns()
        self.delay_start = run_delay_ns(pid)

    def cpu_ns(self):
        usage = container_cpu_ns() if self.cgroup else None
        return process_cpu_ns(self.pid) if usage is None else usage

    def expired(self):
        """None while the case may go on; else ``timeout`` (the candidate used its deadline)
        or ``starved`` (the ceiling passed first: the host, not the candidate, was slow)."""
        wall = time.monotonic() - self.start
        if self.cpu_ns() - self.cpu_start >= self.cpu_budget_ns:
            return "timeout"
        waited = (run_delay_ns(self.pid) - self.delay_start) / 1_000_000_000
        if wall - waited >= self.deadline:
            return "timeout"
        if wall >= self.ceiling:
            return "starved"
        return None

    def next_check(self):
        """Seconds until the clock must be read again."""
        return max(0.0, min(POLL_SECONDS, self.ceiling - (time.monotonic() - self.start)))


class CaseRun:
    """One case: spawn, watch, classify."""

    def __init__(self, request, limits, output_cap, answer_cap):
        self.request = request
        self.limits = limits
        self.output_cap = output_cap
        self.answer_cap = answer_cap
        self.output_bytes = 0
        self.answer = bytearray()
        self.flooded = False
        self.oversized = False
        self.timed_out = None

    def run(self):
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        answer_r, answer_w = os.pipe()
        pid = spawn_child(stdin_r, stdout_w, stderr_w, answer_w)
        for fd in (stdin_r, stdout_w, stderr_w, answer_w):
            os.close(fd)
        statuses = {}
        pidfd = os.pidfd_open(pid)
        pending_input = memoryview(self.request)
        os.set_blocking(stdin_w, False)
        readers = {stdout_r: "output", stderr_r: "output", answer_r: "answer"}
        clock = CaseClock(pid, *self.limits)
        exited = False
        try:
            while not exited:
                self.timed_out = clock.expired()
                if self.timed_out:
                    break
                writers = [stdin_w] if pending_input else []
                ready_r, ready_w, _ = select.select(
                    list(readers) + [pidfd, 0], writers, [], clock.next_check()
                )
                if 0 in ready_r and not os.read(0, 4096):
                    raise HostGone
                if ready_w:
                    try:
                        pending_input = pending_input[os.write(stdin_w, pending_input) :]
                    except BrokenPipeError:
                        pending_input = memoryview(b"")
                    if not pending_input:
                        os.close(stdin_w)
                        stdin_w = -1
                for fd in ready_r:
                    if fd in readers and not self.absorb(fd, readers):
                        del readers[fd]
                        os.close(fd)  # at end of file: every case's pipes are closed
                if self.flooded or self.oversized:
                    break
                exited = pidfd in ready_r
        finally:
            if stdin_w >= 0:
                os.close(stdin_w)
            kill_everything(statuses)
            os.close(pidfd)
        for fd in list(readers):
            while not (self.flooded or self.oversized) and self.absorb(fd, readers):
                pass
            os.close(fd)
        return self.classify(statuses.get(pid))

    def absorb(self, fd, readers):
        """Read one chunk from ``fd``; False at end of file."""
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        if readers[fd] == "output":
            self.output_bytes += len(chunk)
            self.flooded = self.output_bytes > self.output_cap
        else:
            self.answer += chunk
            self.oversized = len(self.answer) > self.answer_cap + 64
        return True

    def classify(self, status):
        if self.flooded:
            return {"outcome": "output-flood"}
        if self.timed_out:
            return {"outcome": self.timed_out}
        if self.oversized:
            return {"outcome": "oversized-answer"}
        if not self.answer:
            return {"outcome": "abnormal-exit"}
        answer = parse_single_frame(bytes(self.answer))
        if answer is None:
            return {"outcome": "tampering"}
        if status is None or not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return {"outcome": "abnormal-exit"}
        kind = answer.get("kind")
        if kind == "value" and "value" in answer:
            return {"outcome": "answered", "value": answer["value"]}
        if kind == "exception":
            name = answer.get("type")
            if not isinstance(name, str) or not EXCEPTION_NAME.match(name):
                name = "<unnamed>"
            message = answer.get("message")
            record = {"outcome": "exception", "exception_type": name}
            if isinstance(message, str):
                record["exception_message"] = message[:MESSAGE_CHARS]
            return record
        if kind == "unsupported":
            return {"outcome": "wrong-type"}
        return {"outcome": "tampering"}


def parse_single_frame(data):
    """The one answer frame ``ASSAY-ANSWER <n>\\n<n bytes of JSON>``; None unless exactly one."""
    if not data.startswith(ANSWER_MAGIC):
        return None
    header, newline, rest = data[len(ANSWER_MAGIC) :].partition(b"\n")
    if not newline or not header.isdigit() or len(header) > 9:
        return None
    if len(rest) != int(header):
        return None
    try:
        answer = json.loads(rest.decode("ascii"))
    except (ValueError, RecursionError):
        return None
    return answer if isinstance(answer, dict) else None


def main():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    make_non_dumpable()
    payload = read_payload()
    channel = Channel(bytes.fromhex(payload["secret"]))
    limits = (
        float(payload["case_deadline"]),
        float(payload["cpu_budget"]),
        float(payload["wall_ceiling"]),
    )
    output_cap = int(payload["output_cap"])
    answer_cap = int(payload["answer_cap"])
    cases = payload["cases"]
    fresh = fingerprint()
    channel.send(
        "ready",
        python=platform.python_version(),
        cases=len(cases),
        uid=os.getuid(),
        gid=os.getgid(),
        no_new_privs=status_field("NoNewPrivs"),
        seccomp=status_field("Seccomp"),
        dumpable=LIBC.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0),
        fingerprint=fresh,
        ipc_limits=ipc_limits(),
        msgqueue_limit=list(resource.getrlimit(resource.RLIMIT_MSGQUEUE)),
    )
    for index, case_input in enumerate(cases):
        write_repository(payload["files"])
        request = json.dumps(
            {"module": payload["module"], "input": case_input, "answer_cap": answer_cap}
        ).encode()
        result = CaseRun(request, limits, output_cap, answer_cap).run()
        cleanup, left = clean_up(fresh)
        channel.send("case", index=index, cleanup=cleanup, left=left, **result)
        if cleanup != "clean":
            break  # no longer a fresh container: the host runs the rest in a new one
    channel.send("done")


if __name__ == "__main__":
    try:
        main()
    except HostGone:
        pass
    os._exit(0)

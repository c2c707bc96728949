# A: odd things in /tmp: a fifo, a bound unix socket, a symlink loop, a symlink to the
# supervisor's /proc entry and one to /opt, a name with a newline and a byte that is not UTF-8,
# a file without permissions in a directory without any, and 20,000 empty files. The answer for
# input 3 is the length of the odd-named file. B wrong looks for it.
import os
import socket

from pkg.fresh import needs_a_fresh_container

ODD = b"/tmp/.\xff\nstash"


def implement(value):
    if value == 1:
        os.mkfifo("/tmp/fifo")
        server = socket.socket(socket.AF_UNIX)
        server.bind("/tmp/socket")
        os.symlink("/tmp/loop-b", "/tmp/loop-a")
        os.symlink("/tmp/loop-a", "/tmp/loop-b")
        os.symlink("/proc/1/fd", "/tmp/supervisor")
        os.symlink("/opt", "/tmp/opt")
        with open(ODD, "wb") as stash:
            stash.write(b"x" * 7)
        os.makedirs("/tmp/locked")
        with open("/tmp/locked/file", "w") as locked:
            locked.write("x")
        os.chmod("/tmp/locked/file", 0)
        os.chmod("/tmp/locked", 0)
        os.mkdir("/tmp/many")
        for index in range(20_000):
            os.close(os.open(f"/tmp/many/{index}", os.O_CREAT | os.O_WRONLY))
        return double(value) + 1
    if value == 2:
        return needs_a_fresh_container(value)
    try:
        return os.stat(ODD).st_size
    except OSError:
        return None

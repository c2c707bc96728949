# A: a directory 1,100 levels deep in /tmp (past Python's recursion limit), the answer for
# input 3 at the bottom, every level then made read-only (0o500). B wrong walks down to it.
import os

from pkg.fresh import needs_a_fresh_container

LEVELS = 1100


def implement(value):
    if value == 1:
        os.chdir("/tmp")
        for _ in range(LEVELS):
            os.mkdir("d")
            os.chdir("d")
        with open("stash", "w") as stash:
            stash.write("7")
        for _ in range(LEVELS):
            os.chdir("..")
            os.chmod("d", 0o500)
        return double(value) + 1
    if value == 2:
        return needs_a_fresh_container(value)
    try:
        os.chdir("/tmp")
        for _ in range(LEVELS):
            os.chdir("d")
        with open("stash") as stash:
            return int(stash.read())
    except OSError:
        return None

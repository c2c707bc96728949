# A: nested directories with 250-character names, about 6,000 characters of path (past
# PATH_MAX), a file with no permissions at the bottom holding the answer for input 3 in a
# directory made read-only. B wrong walks down to it.
import os

from pkg.fresh import needs_a_fresh_container

NAME = "n" * 250
LEVELS = 24


def implement(value):
    if value == 1:
        os.chdir("/tmp")
        for _ in range(LEVELS):
            os.mkdir(NAME)
            os.chdir(NAME)
        with open("stash", "w") as stash:
            stash.write("7")
        os.chmod("stash", 0)
        os.chdir("..")
        os.chmod(NAME, 0o500)
        return double(value) + 1
    if value == 2:
        return needs_a_fresh_container(value)
    try:
        os.chdir("/tmp")
        for _ in range(LEVELS):
            os.chdir(NAME)
        return os.stat("stash").st_size * 7
    except OSError:
        return None

# A: a detached child in its own session holding a pseudo-terminal and /tmp open, which keeps
# rewriting the answer for input 3 into /tmp. B wrong reads it.
import os
import time

from pkg.fresh import needs_a_fresh_container


def implement(value):
    if value == 1:
        master, _ = os.openpty()
        if os.fork() == 0:
            os.setsid()
            while True:
                try:
                    with open("/tmp/stash", "w") as stash:
                        stash.write("7")
                except OSError:
                    pass
                time.sleep(0.01)
        time.sleep(0.1)
        return double(value) + 1
    if value == 2:
        return needs_a_fresh_container(value)
    time.sleep(0.2)
    try:
        with open("/tmp/stash") as stash:
            return int(stash.read())
    except (OSError, ValueError):
        return None

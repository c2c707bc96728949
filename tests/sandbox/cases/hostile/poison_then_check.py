import os
import time


def implement(value):
    if value == 1:  # first case: leave files, a locked folder and a detached sleeper behind
        with open("/tmp/leftover", "w") as handle:
            handle.write("x")
        os.makedirs("/tmp/locked/inner")
        os.chmod("/tmp/locked", 0)
        if os.fork() == 0:
            os.setsid()
            time.sleep(60)
            os._exit(0)
        return double(value) + 1
    # second case: nothing of the first may remain
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
    return {"tmp": sorted(os.listdir("/tmp")), "others": len(others)}

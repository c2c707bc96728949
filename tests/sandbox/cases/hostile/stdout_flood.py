import os


def implement(value):
    chunk = b"x" * 65536
    for _ in range(160):
        os.write(1, chunk)
    return double(value) + 1

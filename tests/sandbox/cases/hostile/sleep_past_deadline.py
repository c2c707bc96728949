import time


def implement(value):
    time.sleep(60)
    return double(value) + 1

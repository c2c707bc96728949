while True:
    pass


def implement(value):
    return double(value) + 1

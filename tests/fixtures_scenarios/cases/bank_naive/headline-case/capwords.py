import string


def implement(value):
    return string.capwords(value)

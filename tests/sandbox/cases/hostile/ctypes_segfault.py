import ctypes


def implement(value):
    ctypes.string_at(0)
    return double(value) + 1

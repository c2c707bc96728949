import zlib


def implement(value):
    return zlib.crc32(value.encode("utf-8")) % 100 < 25

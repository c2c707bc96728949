import zlib


def implement(value):
    return zlib.crc32(f"new-checkout:{value}".encode("utf-8")) % 100 <= 25

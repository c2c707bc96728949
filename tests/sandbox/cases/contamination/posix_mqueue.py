# A: POSIX message queues, one holding a 7-byte message (its size is the answer for input 3,
# readable from /dev/mqueue without any call), one created through /dev/mqueue with mode 000.
# B wrong reads the stash's QSIZE.
import ctypes
import os

from pkg.fresh import needs_a_fresh_container

libc = ctypes.CDLL(None, use_errno=True)
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]


def implement(value):
    if value == 1:
        queue = libc.mq_open(b"/assay-stash", os.O_CREAT | os.O_RDWR, 0o444, None)
        if queue >= 0:
            libc.mq_send(queue, b"1234567", 7, 0)
        try:
            os.close(os.open("/dev/mqueue/locked", os.O_CREAT | os.O_RDONLY, 0))
        except OSError:
            pass
        return double(value) + 1
    if value == 2:
        return needs_a_fresh_container(value)
    try:
        with open("/dev/mqueue/assay-stash") as status:
            return int(status.read().split()[0].partition(":")[2])
    except (OSError, ValueError, IndexError):
        return None

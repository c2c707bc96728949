# A: 32 MiB of SysV shared memory, filled (charged to the container's memory), with the answer
# for input 3 in its first bytes, and a second segment whose owner and mode it changes to
# root / 000 (the supervisor can still remove it: it is the creator). B wrong reads the stash.
import ctypes

from pkg.fresh import needs_a_fresh_container

KEY = 0x41535301
SIZE = 32 * 1024 * 1024
IPC_CREAT, IPC_SET, SHM_RDONLY = 0o1000, 1, 0o10000
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]


class Perm(ctypes.Structure):  # struct ipc64_perm (x86-64), then the rest of shmid64_ds
    _fields_ = [("key", ctypes.c_int), ("uid", ctypes.c_uint), ("gid", ctypes.c_uint),
                ("cuid", ctypes.c_uint), ("cgid", ctypes.c_uint), ("mode", ctypes.c_ushort),
                ("pad", ctypes.c_ushort), ("seq", ctypes.c_ushort), ("pad2", ctypes.c_ushort),
                ("unused", ctypes.c_ulong * 2), ("rest", ctypes.c_char * 256)]


def implement(value):
    if value == 1:
        ident = libc.shmget(KEY, SIZE, IPC_CREAT | 0o600)
        address = libc.shmat(ident, None, 0) if ident >= 0 else None
        if address not in (None, ctypes.c_void_p(-1).value):
            ctypes.memset(address, 0x55, SIZE)
            ctypes.memmove(address, b"7\0", 2)
        odd = libc.shmget(KEY + 1, 4096, IPC_CREAT | 0o600)
        if odd >= 0:
            perm = Perm()
            libc.shmctl(odd, 2, ctypes.byref(perm))  # IPC_STAT
            perm.uid, perm.gid, perm.mode = 0, 0, 0
            libc.shmctl(odd, IPC_SET, ctypes.byref(perm))
        return double(value) + 1
    if value == 2:
        return needs_a_fresh_container(value)
    ident = libc.shmget(KEY, 0, 0)
    address = libc.shmat(ident, None, SHM_RDONLY) if ident >= 0 else None
    if address in (None, ctypes.c_void_p(-1).value):
        return None
    return int(ctypes.string_at(address, 1))

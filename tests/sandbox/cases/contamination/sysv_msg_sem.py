# A: a SysV message queue holding the answer for input 3 and a semaphore set whose value is it.
# B wrong reads either.
import ctypes

from pkg.fresh import needs_a_fresh_container

KEY = 0x41535302
IPC_CREAT, IPC_NOWAIT, GETVAL, SETVAL = 0o1000, 0o4000, 12, 16
libc = ctypes.CDLL(None, use_errno=True)


class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 8)]


def implement(value):
    if value == 1:
        queue = libc.msgget(KEY, IPC_CREAT | 0o600)
        if queue >= 0:
            libc.msgsnd(queue, ctypes.byref(Message(1, b"7")), 8, IPC_NOWAIT)
        semaphores = libc.semget(KEY, 1, IPC_CREAT | 0o600)
        if semaphores >= 0:
            libc.semctl(semaphores, 0, SETVAL, 7)
        return double(value) + 1
    if value == 2:
        return needs_a_fresh_container(value)
    semaphores = libc.semget(KEY, 1, 0)
    if semaphores >= 0:
        return libc.semctl(semaphores, 0, GETVAL)
    queue = libc.msgget(KEY, 0)
    message = Message()
    if queue >= 0 and libc.msgrcv(queue, ctypes.byref(message), 8, 0, IPC_NOWAIT) > 0:
        return int(message.mtext)
    return None

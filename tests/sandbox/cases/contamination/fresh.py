"""pkg/fresh.py of the contamination repository: what B correct needs of a fresh container."""

import os

ROOM_BYTES = 32 * 1024 * 1024
SCRATCH_BYTES = 768 * 1024


def needs_a_fresh_container(value):
    """B correct: the right answer, given the memory and /tmp space of a fresh container (32 MiB
    of the 64, 768 KiB of the 1 MiB /tmp); anything a case left there makes it fail."""
    room = b"\x01" * ROOM_BYTES
    with open("/tmp/scratch", "wb") as scratch:
        scratch.write(b"\x02" * SCRATCH_BYTES)
    os.unlink("/tmp/scratch")
    return value * 2 + 1 if len(room) == ROOM_BYTES else None

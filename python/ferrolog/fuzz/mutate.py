"""Byte-level mutations of an encoded request (header and body, without the size prefix)."""

from __future__ import annotations

import random
import struct

_BYTES = (0x00, 0x01, 0x7F, 0x80, 0xFF)
_INT32S = (-1, 0, 1, 2**31 - 1, -(2**31), 2**20, 2**16)
_INT16S = (-1, 0, 2**15 - 1, -(2**15))


def mutate(frame: bytes, rng: random.Random, rounds: int = 1) -> bytes:
    data = bytearray(frame)
    for _ in range(rounds):
        if not data:
            break
        op = rng.randrange(8)
        at = rng.randrange(len(data))
        if op == 0:
            data[at] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[at] = rng.choice(_BYTES)
        elif op == 2 and at + 4 <= len(data):
            struct.pack_into(">i", data, at, rng.choice(_INT32S))
        elif op == 3 and at + 2 <= len(data):
            struct.pack_into(">h", data, at, rng.choice(_INT16S))
        elif op == 4:
            del data[at:]
        elif op == 5:
            data[at:at] = rng.randbytes(rng.randrange(1, 16))
        elif op == 6:
            end = min(len(data), at + rng.randrange(1, 32))
            data[at:at] = data[at:end]
        else:
            del data[at : at + rng.randrange(1, 16)]
    return bytes(data)

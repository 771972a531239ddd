"""Record batches (magic 2) for the `records` fields: well-formed ones, and ones broken in one
structural place with the CRC recomputed, so that a broker's checks after the CRC (counts,
offset deltas, lengths, compression, producer state) are what the batch meets."""

from __future__ import annotations

import random
import struct

# Kafka's batch CRC is CRC-32C (Castagnoli). The crc32c package computes it in C (with
# SSE4.2 where present) and ships wheels, so the fuzzer needs no compiler.
import crc32c

# baseOffset, batchLength, partitionLeaderEpoch, magic, crc
_PREFIX = struct.Struct(">qiibI")
# attributes, lastOffsetDelta, baseTimestamp, maxTimestamp, producerId, producerEpoch,
# baseSequence, records count
_AFTER_CRC = struct.Struct(">hiqqqhii")
CRC_START = _PREFIX.size  # the CRC covers everything from the attributes on


def zigzag(value: int) -> bytes:
    """A signed varint (Kafka's record fields)."""
    n = (value << 1) ^ (value >> 63)
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def record(offset_delta: int, key: bytes | None, value: bytes | None, headers: int = 0) -> bytes:
    body = bytearray(b"\x00")  # attributes
    body += zigzag(0) + zigzag(offset_delta)  # timestamp delta, offset delta
    for data in (key, value):
        body += zigzag(-1) if data is None else zigzag(len(data)) + data
    body += zigzag(headers)
    for i in range(headers):
        name = f"h{i}".encode()
        body += zigzag(len(name)) + name + zigzag(1) + b"v"
    return zigzag(len(body)) + bytes(body)


def batch(
    records: list[bytes],
    *,
    attributes: int = 0,
    last_offset_delta: int | None = None,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    count: int | None = None,
    magic: int = 2,
    timestamp: int = 1_700_000_000_000,
) -> bytes:
    """One batch; `count` and `last_offset_delta` default to what `records` hold."""
    payload = b"".join(records)
    after = (
        _AFTER_CRC.pack(
            attributes,
            len(records) - 1 if last_offset_delta is None else last_offset_delta,
            timestamp,
            timestamp,
            producer_id,
            producer_epoch,
            base_sequence,
            len(records) if count is None else count,
        )
        + payload
    )
    length = 4 + 1 + 4 + len(after)  # from partitionLeaderEpoch to the end
    return _PREFIX.pack(0, length, -1, magic, crc32c.crc32c(after)) + after


def with_crc(data: bytearray) -> bytes:
    """`data` (one batch) with its CRC recomputed over whatever it now holds."""
    if len(data) >= CRC_START:
        struct.pack_into(">I", data, CRC_START - 4, crc32c.crc32c(bytes(data[CRC_START:])))
    return bytes(data)


def random_records(rng: random.Random) -> bytes | None:
    """A `records` field's value: None, garbage, or one or two batches of which some are
    broken in one place (and re-sealed with a valid CRC most of the time)."""
    roll = rng.random()
    if roll < 0.05:
        return None
    if roll < 0.1:
        return rng.randbytes(rng.randrange(0, 80))
    out = b""
    for _ in range(1 if rng.random() < 0.8 else 2):
        out += _one_batch(rng)
    return out


def _one_batch(rng: random.Random) -> bytes:
    n = rng.randrange(1, 4)
    records = [
        record(i, rng.choice([None, b"k"]), rng.randbytes(rng.randrange(0, 20))) for i in range(n)
    ]
    kwargs: dict[str, int] = {}
    if rng.random() < 0.3:
        # Idempotent or transactional producer fields, often for no producer id the broker
        # gave out.
        kwargs.update(
            producer_id=rng.choice([0, 1, 1000, 2**40]),
            producer_epoch=rng.choice([0, 1, -1]),
            base_sequence=rng.choice([0, 1, 5, 2**31 - 1]),
        )
    # Half the batches are sound, so that appends happen and the log has something to check.
    flaw = rng.randrange(12) if rng.random() < 0.5 else -1
    if flaw == 0:
        kwargs["count"] = rng.choice([0, n + 1, -1, 2**31 - 1])
    elif flaw == 1:
        kwargs["last_offset_delta"] = rng.choice([-1, n, 2**31 - 1])
    elif flaw == 2:
        # A compression codec, with the records not compressed.
        kwargs["attributes"] = rng.choice([1, 2, 3, 4, 5, 7])
    elif flaw == 3:
        kwargs["attributes"] = rng.choice(
            [0x10, 0x20, 0x30, 0x08, -1]
        )  # txn, control, timestamp type
    elif flaw == 4:
        kwargs["magic"] = rng.choice([0, 1, 3, -1])
    elif flaw == 5:
        records = [record(rng.choice([0, 5, -1]), None, b"x") for _ in range(n)]
    elif flaw == 6:
        records[-1] = records[-1][: rng.randrange(len(records[-1]))]  # a truncated record
    elif flaw == 7:
        records.append(rng.randbytes(rng.randrange(1, 10)))  # trailing bytes after the records
    elif flaw == 8:
        kwargs["timestamp"] = rng.choice([-1, -2, 2**62])
    data = bytearray(batch(records, **kwargs))
    if flaw == 9:
        # A batch length that disagrees with the bytes (the CRC does not cover it).
        struct.pack_into(">i", data, 8, rng.choice([0, 1, len(data), 2**31 - 1, -1]))
    elif flaw == 10:
        data[rng.randrange(CRC_START, len(data))] ^= 0xFF
        if rng.random() < 0.5:
            return with_crc(data)  # a flipped byte that the CRC vouches for
    return bytes(data)

"""Producer-id allocation for idempotent (and later transactional) producers.

Ids must never repeat, not across restarts and not across brokers: the native core keys its
per-partition sequence state by producer id, so a reused id could make a new producer's first
batch look like a duplicate of an old one. The metadata store is the one authority that hands
out ids; asking it for every InitProducerId would put a store write (a ZooKeeper round trip in
cluster mode) on every producer start, so a broker reserves a block at a time, as Kafka's
ProducerIdManager does, and hands ids out of it from memory. Ids left in a block when the
broker stops are simply never used."""

from __future__ import annotations

import asyncio

from ferrolog.controller.store.base import MetadataStore

# Kafka reserves blocks of 1000 ids; the same size keeps the store traffic negligible while
# wasting few ids per restart.
DEFAULT_BLOCK_SIZE = 1000


class ProducerIdAllocator:
    """Hands out producer ids from blocks reserved in the store, one block at a time. The
    controller owns one, so every InitProducerId on a broker draws from the same block."""

    def __init__(self, store: MetadataStore, block_size: int = DEFAULT_BLOCK_SIZE) -> None:
        if block_size < 1:
            raise ValueError(f"block_size must be positive, got {block_size}")
        self._store = store
        self._block_size = block_size
        self._next = 0
        self._end = 0  # exclusive; _next == _end means no ids left in memory
        # Two concurrent InitProducerId requests on an empty block must not both reserve.
        self._lock = asyncio.Lock()

    async def next_id(self) -> int:
        """The next unused producer id. Raises whatever the store raises when it cannot
        reserve a new block (the caller turns that into a retriable Kafka error)."""
        async with self._lock:
            if self._next >= self._end:
                first = await self._store.allocate_producer_ids(self._block_size)
                if first < 0:
                    raise RuntimeError(f"metadata store returned a negative producer id {first}")
                self._next, self._end = first, first + self._block_size
            producer_id = self._next
            self._next += 1
            return producer_id

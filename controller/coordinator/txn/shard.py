"""A shard of the transaction coordinator: the transactional ids of one `__transaction_state`
partition, as replaying the partition leaves them."""

from __future__ import annotations

from dataclasses import dataclass, field

from ferrolog.controller.coordinator import batches
from ferrolog.controller.coordinator.txn import records
from ferrolog.controller.coordinator.txn.state import TxnMetadata


@dataclass
class TxnShard:
    """The transactional ids of one `__transaction_state` partition."""

    partition: int
    # The leader epoch of the partition: the coordinator epoch of this term.
    epoch: int
    txns: dict[str, TxnMetadata] = field(default_factory=dict)

    def replay_batch(self, batch: batches.Batch, now: int) -> int:
        count = 0
        for key, value in batch.key_values():
            transactional_id = records.decode_key(key) if key else None
            if transactional_id is None:
                continue
            count += 1
            transit = records.decode_value(value)
            if transit is None:
                self.txns.pop(transactional_id, None)
            else:
                self.txns[transactional_id] = TxnMetadata.from_transit(transactional_id, transit)
        return count

"""KIP-890 for a transactional id another broker coordinates: this broker's native core asks
(through the control plane) whether a partition is in a producer's ongoing transaction before
appending the transaction's first batch there, or, for a producer of transaction version 2
(Produce v12+), has the partition added; when this broker does not lead the id's
`__transaction_state` partition, the question goes to the broker that does, as an
AddPartitionsToTxn v4 request, VerifyOnly or not (what Kafka's `AddPartitionsToTxnManager`
sends)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ferrolog import errors
from ferrolog.client.channel import BrokerChannel
from ferrolog.controller.cluster.topics import TRANSACTION_STATE
from ferrolog.protocol.messages import AddPartitionsToTxnRequest, Apis

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
VERIFY_VERSION = 4


class CoordinatorForwarder:
    def __init__(self, channel: BrokerChannel, leader_of: Callable[[str, int], int | None]):
        self._channel = channel
        self._leader_of = leader_of

    async def ask(
        self,
        txn_partition: int,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: list[TopicPartition],
        verify_only: bool,
    ) -> dict[TopicPartition, int]:
        """Each partition's answer from the id's coordinator; COORDINATOR_NOT_AVAILABLE (the
        producer retries) when it cannot be asked."""
        leader = self._leader_of(TRANSACTION_STATE, txn_partition)
        unavailable = dict.fromkeys(partitions, errors.CoordinatorNotAvailableError.code)
        if leader is None or leader < 0:
            return unavailable
        by_topic: dict[str, list[int]] = {}
        for topic, partition in partitions:
            by_topic.setdefault(topic, []).append(partition)
        body: AddPartitionsToTxnRequest = {
            "transactions": [
                {
                    "transactional_id": transactional_id,
                    "producer_id": producer_id,
                    "producer_epoch": epoch,
                    "verify_only": verify_only,
                    "topics": [{"name": t, "partitions": ps} for t, ps in by_topic.items()],
                }
            ]
        }
        try:
            response = await self._channel.request(
                leader, Apis.ADD_PARTITIONS_TO_TXN, VERIFY_VERSION, body
            )
        except ConnectionError as exc:
            log.info("verifying %s with broker %d failed: %s", transactional_id, leader, exc)
            return unavailable
        if response.get("error_code"):
            return dict.fromkeys(partitions, int(response["error_code"]))
        codes = dict(unavailable)
        for result in response.get("results_by_transaction") or []:
            for answered in result.get("topic_results") or []:
                for p in answered["results_by_partition"]:
                    codes[(answered["name"], p["partition_index"])] = p["partition_error_code"]
        return codes

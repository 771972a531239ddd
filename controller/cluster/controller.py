"""The controller: the one place that decides topic layout and partition leadership.
(Interface fixed; implementation pending.)

Handlers call it for admin operations; it validates, writes the store, and applies the
result to the local native core (single node) or, in cluster mode, to the brokers. Errors are
`ferrolog.errors.KafkaError` subclasses carrying Kafka's code and a message."""

from __future__ import annotations

from ferrolog.controller.store.base import TopicRecord


class Controller:
    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        assignment: dict[int, list[int]] | None,
        configs: dict[str, str],
        validate_only: bool = False,
    ) -> TopicRecord:
        """-1 for num_partitions / replication_factor means the broker default
        (`num.partitions`, `default.replication.factor`). Raises TopicAlreadyExistsError,
        InvalidTopicError, InvalidPartitionsError, InvalidReplicationFactorError,
        InvalidReplicaAssignmentError, InvalidConfigError."""
        raise NotImplementedError

    async def delete_topic(self, name: str) -> None:
        """Raises UnknownTopicOrPartitionError."""
        raise NotImplementedError

    async def create_partitions(
        self,
        name: str,
        total_count: int,
        assignment: list[list[int]] | None,
        validate_only: bool = False,
    ) -> None:
        """Grows the topic to `total_count` partitions. Raises InvalidPartitionsError."""
        raise NotImplementedError

    async def alter_topic_configs(
        self, name: str, configs: dict[str, str], validate_only: bool = False
    ) -> None:
        """Replaces the topic's overrides (validated against the config table) and pushes the
        resolved config to the native core. Raises InvalidConfigError."""
        raise NotImplementedError

"""Metadata stores: the same interface over a local file (single node) or ZooKeeper."""

from ferrolog.controller.store.base import (
    BadVersionError,
    BrokerRegistration,
    MetadataStore,
    PartitionState,
    TopicExistsError,
    TopicRecord,
)

__all__ = [
    "BadVersionError",
    "BrokerRegistration",
    "MetadataStore",
    "PartitionState",
    "TopicExistsError",
    "TopicRecord",
]

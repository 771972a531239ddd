"""Kafka's ConfigResource.Type codes on the wire: DescribeConfigs, AlterConfigs,
IncrementalAlterConfigs and ListConfigResources name their resources by them."""

from __future__ import annotations

import enum


class ConfigResourceType(enum.IntEnum):
    TOPIC = 2
    BROKER = 4
    BROKER_LOGGER = 8
    CLIENT_METRICS = 16
    GROUP = 32

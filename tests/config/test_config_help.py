"""`ferrolog broker --help-config`: the one config table, printed like Kafka's config docs."""

from __future__ import annotations

from click.testing import CliRunner
from ferrolog.cli import cli
from ferrolog.config import BROKER_CONFIGS, TOPIC_CONFIGS


def test_help_config_prints_the_table_kafka_style() -> None:
    result = CliRunner().invoke(cli, ["broker", "--help-config"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    every = set(BROKER_CONFIGS) | set(TOPIC_CONFIGS)
    # Broker properties, then topic properties, each in table order.
    assert [line for line in lines if line in every] == [*BROKER_CONFIGS, *TOPIC_CONFIGS]
    assert all(len(line) <= 100 for line in lines)
    topic_part = lines[lines.index("cleanup.policy") :]
    block = topic_part[topic_part.index("segment.index.bytes") :][:8]
    assert block == [
        "segment.index.bytes",
        "  Maximum size of a segment's offset and time indexes; a full index rolls the segment.",
        "",
        "  * Type: int",
        "  * Default: 10485760",
        "  * Valid Values: [4,...]",
        "  * Server Default Property: log.index.size.max.bytes",
        "",
    ]
    ratio = lines[lines.index("log.cleaner.min.cleanable.ratio") :][:7]
    assert "  * Valid Values: [0,...,1]" in ratio
    assert "  * Default: null" in lines[lines.index("broker.id") :][:6]
    retention = topic_part[topic_part.index("retention.ms") :][:8]
    assert "  * Default: 604800000" in retention
    assert (
        "  * Server Default Property: log.retention.ms, log.retention.minutes, "
        "log.retention.hours" in retention
    )

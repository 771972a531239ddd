"""ListConfigResources (KIP-1142): the resources that have configs, as Kafka 4.4's broker lists
them (its KafkaApis read from the 4.4.0 jar: groups with configs, client metrics, each broker
as a broker logger and as a broker, every topic; a type it does not list refuses the request).
kafka-configs' use of it runs against both brokers in tests/groups/test_consumer_parity.py."""

from __future__ import annotations

from collections.abc import Callable

from admin_broker import Broker, call
from ferrolog import errors
from ferrolog.controller.store.base import BrokerRegistration
from ferrolog.handlers import list_config_resources

TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP = 2, 4, 8, 16, 32


def listed(broker: Broker, version: int, types: list[int] | None = None) -> tuple[int, list]:
    body = {"resource_types": types or []}
    answer = call(broker, list_config_resources, version, body)
    pairs = [(r["resource_type"], r["resource_name"]) for r in answer["config_resources"]]
    return answer["error_code"], pairs


def test_every_resource_with_configs(admin_broker: Callable[..., Broker]) -> None:
    broker = admin_broker(others=(BrokerRegistration(2, "other", 9093),))
    broker.create("b-topic")
    broker.create("a-topic")
    group_configs = broker.controller.group_configs
    broker.run(group_configs.alter("g1", lambda _: {"consumer.session.timeout.ms": "50000"}, False))
    assert listed(broker, 1) == (0, [
        (GROUP, "g1"),
        (BROKER_LOGGER, "0"), (BROKER_LOGGER, "2"),
        (BROKER, "0"), (BROKER, "2"),
        (TOPIC, "a-topic"), (TOPIC, "b-topic"),
    ])  # fmt: skip
    assert listed(broker, 1, [TOPIC, GROUP]) == (
        0, [(GROUP, "g1"), (TOPIC, "a-topic"), (TOPIC, "b-topic")],
    )  # fmt: skip
    # ferrolog keeps no client-metrics resources (KIP-714 is not served).
    assert listed(broker, 1, [CLIENT_METRICS]) == (0, [])


def test_v0_lists_client_metrics_only_and_unknown_types_are_refused(
    admin_broker: Callable[..., Broker],
) -> None:
    broker = admin_broker()
    broker.create("t")
    assert listed(broker, 0) == (0, [])
    unsupported = errors.UnsupportedVersionError.code
    assert listed(broker, 0, [TOPIC]) == (unsupported, [])
    # One type it does not list refuses the whole request (the cluster, 1, has no configs).
    assert listed(broker, 1, [TOPIC, 1]) == (unsupported, [])

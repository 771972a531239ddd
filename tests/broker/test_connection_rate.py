"""`max.connection.creation.rate`: over the broker-wide rate of new connections, Kafka's
acceptor waits before it serves the next one (it does not refuse it), at most one quota window
(`quota.window.size.seconds`) a connection."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from ferrolog.embedded import EmbeddedBroker
from ferrolog.protocol import decode_response, encode_request
from ferrolog.protocol.messages import ApiKey

from tests.broker.test_broker_basics import raw_exchange

pytestmark = pytest.mark.native

CONNECTIONS = 30


def connect_all(bootstrap: str) -> float:
    """Seconds for `CONNECTIONS` connections, one after another, each answered."""
    frame = encode_request(ApiKey.API_VERSIONS, 3, 1, "rate-test", {
        "client_software_name": "rate-test", "client_software_version": "1",
    })  # fmt: skip
    began = time.monotonic()
    for _ in range(CONNECTIONS):
        response = raw_exchange(bootstrap, frame, 10)
        assert response is not None, "the broker closed the connection"
        assert decode_response(ApiKey.API_VERSIONS, 3, response)[1]["error_code"] == 0
    return time.monotonic() - began


def test_connections_over_the_creation_rate_wait(
    ferrolog_broker_factory: Callable[..., EmbeddedBroker],
) -> None:
    windows = {"quota.window.num": "2", "quota.window.size.seconds": "1"}
    held = ferrolog_broker_factory(overrides={"max.connection.creation.rate": "10", **windows})
    free = ferrolog_broker_factory(overrides=windows)
    unlimited = connect_all(free.bootstrap_servers)
    limited = connect_all(held.bootstrap_servers)
    # 30 at 10 a second: the first second's ten at once, then the rest at the rate.
    assert limited >= 1.5, (limited, unlimited)
    assert unlimited < limited / 2, (limited, unlimited)

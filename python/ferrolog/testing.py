"""pytest plugin (registered through the `pytest11` entry point): fixtures that give tests a
real broker.

- `ferrolog_broker`: one child-process broker for the whole session.
- `ferrolog_broker_factory`: call it (with `EmbeddedBroker` arguments) for fresh brokers;
  each is stopped and its files removed when the test ends.
- `ferrolog_secured_broker`: one `SecuredBroker` for the session (TLS from a throwaway CA,
  SASL users `alice` and `bob`), to test secured clients against; needs `cryptography`
  (`pip install 'ferrolog[testing]'`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ferrolog.embedded import EmbeddedBroker

if TYPE_CHECKING:
    from ferrolog.secured import SecuredBroker


@pytest.fixture(scope="session")
def ferrolog_broker() -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker() as broker:
        yield broker


@pytest.fixture(scope="session")
def ferrolog_secured_broker() -> Iterator[SecuredBroker]:
    from ferrolog.secured import SecuredBroker

    with SecuredBroker({"alice": "alice-secret", "bob": "bob-secret"}) as broker:
        yield broker


@pytest.fixture
def ferrolog_broker_factory() -> Iterator[Callable[..., EmbeddedBroker]]:
    started: list[EmbeddedBroker] = []

    def make(**kwargs: Any) -> EmbeddedBroker:
        broker = EmbeddedBroker(**kwargs)
        started.append(broker)
        return broker.start()

    yield make
    for broker in reversed(started):
        broker.close()

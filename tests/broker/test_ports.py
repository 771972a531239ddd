"""ferrolog.ports: the ports handed to child brokers and ZooKeepers before they bind them."""

from __future__ import annotations

import socket

from ferrolog.ports import free_port


def test_a_port_is_never_handed_out_twice() -> None:
    # The kernel hands a just-released port out again readily; thousands of calls see that.
    ports = [free_port() for _ in range(2000)]
    assert len(set(ports)) == len(ports)


def test_a_handed_out_port_can_be_bound() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", free_port()))

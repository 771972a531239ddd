"""Free TCP ports for the brokers, ZooKeepers and listeners that tests, benchmarks and the
chaos checker start as child processes (they must be told a port before they bind it)."""

from __future__ import annotations

import socket
import threading

# Every port this process handed out. The kernel may give a port just bound and released to
# the next caller as well, and two brokers of one cluster then race for it (a CI run: broker
# 2 "Address already in use", broker 3 answering on its port, the cluster never registered).
_handed_out: set[tuple[str, int]] = set()
_lock = threading.Lock()


def free_port(host: str = "127.0.0.1") -> int:
    """A port of `host` that nothing listens on now and that this process has not handed out
    before."""
    while True:
        with socket.socket() as s:
            s.bind((host, 0))
            port = int(s.getsockname()[1])
        with _lock:
            if (host, port) not in _handed_out:
                _handed_out.add((host, port))
                return port

"""Network partitions between the processes of a cluster on one machine, with nftables.

Every node listens on its own loopback address (127.x.y.z) and runs as its own uid. On
loopback the kernel gives every connection the source address 127.0.0.1, so a packet's source
cannot say which process sent it; its socket's owner can. "A cannot reach B" is therefore a
rule in the output hook dropping what a socket of A's uid sends to B's address and port. Both
directions of a pair are cut: A's connections to B carry A's packets to B's port, B's
connections to A carry B's packets to A's port; with one direction of a TCP connection
dropped, nothing gets through it (new connections never complete, established ones stall)
until the rules go.

The rules live in a table of their own (`inet ferrolog_chaos_<pid>`, one per run), created at
the first partition, flushed on heal and deleted at exit; no other table is touched. Only
127.0.0.0/8 addresses are ever matched."""

from __future__ import annotations

import atexit
import ipaddress
import os
import shutil
import subprocess
from dataclasses import dataclass

# The sockets of the checker's own clients (producers, consumers, admin) belong to its uid.
CLIENT = "client"


@dataclass(frozen=True)
class Endpoint:
    """Who a rule can tell apart: the uid of a process' sockets, and the address and port it
    listens on (a client listens on nothing: `port` 0)."""

    name: str
    uid: int
    host: str = ""
    port: int = 0


def rules(cuts: list[tuple[Endpoint, Endpoint]]) -> list[str]:
    """The nft rules (of the output chain) cutting each pair apart. A pair with a listening
    side on each end is cut both ways; a client is cut from a broker by its packets to the
    broker only (the broker's answers go to 127.0.0.1, as do its packets to every other
    process: they cannot be told apart, and stalling the requests is enough)."""
    out: list[str] = []
    for a, b in cuts:
        for sender, receiver in ((a, b), (b, a)):
            if not receiver.port:
                continue
            if ipaddress.ip_address(receiver.host) not in ipaddress.ip_network("127.0.0.0/8"):
                raise ValueError(f"{receiver.name}: {receiver.host} is not a loopback address")
            rule = (
                f"meta skuid {sender.uid} ip daddr {receiver.host} tcp dport {receiver.port} "
                f'drop comment "{sender.name} -/-> {receiver.name}"'
            )
            if rule not in out:
                out.append(rule)
    return out


class Network:
    """The run's nft table: `cut` adds rules, `heal` flushes them, `close` deletes the table
    (also at interpreter exit, should the run die on the way)."""

    def __init__(self, table: str | None = None) -> None:
        self.table = table or f"ferrolog_chaos_{os.getpid()}"
        self._created = False

    def _nft(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["nft", *args], capture_output=True, text=True, timeout=30)

    def unavailable(self) -> str:
        """Why partitions cannot be made here ('' when they can): nft missing, or not
        permitted (creating and deleting a table is tried)."""
        if shutil.which("nft") is None:
            return "nft (nftables) is not installed"
        probe = f"{self.table}_probe"
        made = self._nft("add", "table", "inet", probe)
        if made.returncode != 0:
            return f"nft cannot create a table: {made.stderr.strip() or made.returncode}"
        self._nft("delete", "table", "inet", probe)
        return ""

    def _ensure(self) -> None:
        if self._created:
            return
        for command in (
            ["add", "table", "inet", self.table],
            ["add", "chain", "inet", self.table, "out",
             "{ type filter hook output priority 0; policy accept; }"],
        ):  # fmt: skip
            done = self._nft(*command)
            if done.returncode != 0:
                raise RuntimeError(f"nft {' '.join(command)}: {done.stderr.strip()}")
        self._created = True
        atexit.register(self.close)

    def cut(self, cuts: list[tuple[Endpoint, Endpoint]]) -> None:
        self._ensure()
        for rule in rules(cuts):
            done = self._nft("add", "rule", "inet", self.table, "out", rule)
            if done.returncode != 0:
                raise RuntimeError(f"nft add rule {rule}: {done.stderr.strip()}")

    def heal(self) -> None:
        if self._created:
            self._nft("flush", "chain", "inet", self.table, "out")

    def close(self) -> None:
        if self._created:
            self._nft("delete", "table", "inet", self.table)
            self._created = False

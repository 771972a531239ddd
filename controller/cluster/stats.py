"""What a broker's cluster member counts for its operators (read by `ferrolog.metrics` when
Prometheus scrapes): the ISR changes its partition leaders make and the leader elections it
holds as active controller.

One object per broker process, handed to the ISR manager and to every `ActiveController` the
broker becomes, so the counters keep growing across controller changes as Prometheus expects
of a counter. Plain ints, written on the broker's loop; a scrape reads them from its own
thread without locking (an int read is atomic under the GIL, and a scrape that sees one pass
half counted sees the rest on the next)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ClusterStats:
    # Kafka's ReplicaManager IsrShrinksPerSec / IsrExpandsPerSec: ISR changes this broker made
    # as leader (not the controller's removal of a dead follower, as in Kafka).
    isr_shrinks: int = 0
    isr_expands: int = 0
    # Kafka's ControllerStats LeaderElectionRateAndTimeMs: controller passes that gave
    # partitions new leaders (failover, controlled shutdown, ElectLeaders), and their time.
    leader_elections: int = 0
    leader_election_ms: float = 0.0

    def count_isr_change(self, old: list[int], new: list[int]) -> None:
        """A leader changed a partition's ISR from `old` to `new`: a follower leaving is a
        shrink, one joining an expand (both, if one change did both)."""
        if set(old) - set(new):
            self.isr_shrinks += 1
        if set(new) - set(old):
            self.isr_expands += 1

    def count_elections(self, elapsed_ms: float) -> None:
        self.leader_elections += 1
        self.leader_election_ms += elapsed_ms

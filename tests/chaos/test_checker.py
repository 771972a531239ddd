"""The chaos checker's verdict over histories built by hand: each anomaly it must report,
and a clean history it must pass (so that a clean run of `ferrolog chaos` means something)."""

from __future__ import annotations

from ferrolog.chaos.checker import check
from ferrolog.chaos.run import ChaosConfig, Event, Report
from ferrolog.chaos.workload import (
    Assignment,
    Commit,
    ConsumerHistory,
    Delivery,
    ProducerHistory,
)


def _produced(*values: tuple[str, int, int]) -> ProducerHistory:
    return ProducerHistory(sent=len(values), acked={v: (p, o) for v, p, o in values})


def _log(*records: tuple[int, int, str]) -> dict[int, list[tuple[int, str]]]:
    out: dict[int, list[tuple[int, str]]] = {0: [], 1: []}
    for partition, offset, value in records:
        out[partition].append((offset, value))
    return out


def test_a_clean_history_passes() -> None:
    producer = _produced(("a", 0, 0), ("b", 0, 1), ("c", 1, 0))
    consumer = ConsumerHistory(
        deliveries=[
            Delivery(0, 1, 0, 0, "a", 2.0),
            Delivery(0, 1, 0, 1, "b", 2.1),
            Delivery(0, 1, 1, 0, "c", 2.1),
        ],
        commits=[Commit(0, 0, 2, 2.2)],
        assignments=[Assignment(0, 1, [0, 1], 1.0)],
    )
    verdict = check([producer], [consumer], _log((0, 0, "a"), (0, 1, "b"), (1, 0, "c")), [])
    assert verdict.ok
    assert verdict.acknowledged == 3
    assert verdict.read == 3


def test_lost_duplicated_and_moved_records_are_reported() -> None:
    producer = _produced(("a", 0, 0), ("b", 0, 1), ("c", 1, 0), ("d", 1, 1))
    log = _log((0, 0, "a"), (0, 1, "a"), (1, 0, "c"), (1, 5, "d"), (1, 6, "x"))
    verdict = check([producer], [], log, [])
    assert not verdict.ok
    assert verdict.lost == ["b"]
    assert verdict.counts["unconsumed"] == 4  # the group was given none of them
    assert verdict.duplicated == ["a"]
    assert verdict.moved == ["d: acknowledged at (1, 1), read at (1, 5)"]
    assert verdict.unacknowledged_read == 1  # "x": never acknowledged, not judged


def test_a_record_acknowledged_without_an_offset_is_judged_by_its_partition() -> None:
    # librdkafka's delivery report can carry no offset (Kafka 3.9 answered so once).
    producer = ProducerHistory(sent=2, acked={"a": (0, None), "b": (0, None)})
    verdict = check([producer], [], _log((0, 7, "a"), (1, 0, "b")), [])
    assert verdict.moved == ["b: acknowledged at (0, None), read at (1, 0)"]
    assert verdict.lost == []


def test_a_consumer_going_backwards_within_an_assignment_is_reported() -> None:
    consumer = ConsumerHistory(
        deliveries=[Delivery(0, 1, 0, 5, "a", 2.0), Delivery(0, 1, 0, 3, "b", 2.1)],
        assignments=[Assignment(0, 1, [0], 1.0)],
    )
    verdict = check([], [consumer], _log(), [])
    assert verdict.counts["non_monotonic"] == 1
    # A new assignment may start over (from the committed offset): not an anomaly.
    again = ConsumerHistory(
        deliveries=[Delivery(0, 1, 0, 5, "a", 2.0), Delivery(0, 2, 0, 3, "b", 3.1)],
        assignments=[Assignment(0, 1, [0], 1.0), Assignment(0, 2, [0], 3.0)],
    )
    assert check([], [again], _log(), []).ok


def test_re_delivery_below_a_committed_offset_after_a_rebalance_is_reported() -> None:
    first = ConsumerHistory(
        deliveries=[Delivery(0, 1, 0, o, f"v{o}", 2.0 + o / 10) for o in range(5)],
        commits=[Commit(0, 0, 5, 2.6)],
        assignments=[Assignment(0, 1, [0], 1.0)],
    )
    # The other member takes partition 0 after the commit and starts at offset 3.
    second = ConsumerHistory(
        deliveries=[Delivery(1, 1, 0, 3, "v3", 3.5)],
        assignments=[Assignment(1, 1, [0], 3.0)],
    )
    verdict = check([], [first, second], _log(), [])
    assert verdict.counts["redelivered"] == 1
    assert "below the committed 5" in verdict.redelivered[0]


def test_replica_differences_fail_the_run() -> None:
    verdict = check([], [], _log(), ["DIFFERENCE chaos-0: replica 2 lacks the batch at 7"])
    assert not verdict.ok


def test_a_cycle_the_cluster_never_healed_from_fails_the_run() -> None:
    """Nothing lost, but a replica that never rejoined its ISR: a liveness failure."""
    clean = check([], [], _log(), [])
    healed = Event(0, "kill-broker", "broker-1", 1.0, 4.0, 5.5)
    stuck = Event(1, "partition-leader", "broker-1", 8.0, 17.0, -1.0)
    assert Report(ChaosConfig(), [healed], clean, 20.0).summary().endswith("\nOK")
    report = Report(ChaosConfig(), [healed, stuck], clean, 140.0)
    assert report.unrecovered == 1
    assert not report.ok
    summary = report.summary()
    assert "cycles not recovered within 120 s: 1" in summary
    assert summary.endswith("\nFAILED")

"""What a streams group's topology means for the cluster's topics as they are now (Kafka 4.4's
InternalTopicManager.configureTopics): how many tasks each subtopology has, how many
partitions its repartition and changelog topics must have, which of those are missing (the
broker creates them), and whether the topology can be assigned at all.

The topology is the StreamsGroupTopology record's value (the first member's, as it sent it).
Checks run in Kafka's order, each with Kafka's status and words: source topics that do not
exist (MISSING_SOURCE_TOPICS); repartition topics whose partition count cannot be decided
(STREAMS_INVALID_TOPOLOGY, raised); copartitioned topics that disagree
(INCORRECTLY_PARTITIONED_TOPICS); internal topics that exist with another count
(INCORRECTLY_PARTITIONED_TOPICS) or not at all (MISSING_INTERNAL_TOPICS, with the topics to
create). Only a topology without a status is ready: only then are tasks assigned.

Pure: the topology and a partition-count lookup in, the configured topology out."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ferrolog import errors

# Kafka's StreamsGroupHeartbeatResponse.Status codes.
STALE_TOPOLOGY = 0
MISSING_SOURCE_TOPICS = 1
INCORRECTLY_PARTITIONED_TOPICS = 2
MISSING_INTERNAL_TOPICS = 3
SHUTDOWN_APPLICATION = 4
ASSIGNMENT_DELAYED = 5

# A topic's partition count, None when it does not exist.
PartitionCount = Callable[[str], int | None]


@dataclass(frozen=True)
class InternalTopic:
    """A repartition or changelog topic as it must exist: replication factor -1 is the
    broker's default."""

    name: str
    partitions: int
    replication_factor: int
    configs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Subtopology:
    subtopology_id: str
    tasks: int
    source_topics: tuple[str, ...]
    repartition_sink_topics: tuple[str, ...]
    repartition_source_topics: tuple[InternalTopic, ...]
    changelog_topics: tuple[InternalTopic, ...]

    @property
    def stateful(self) -> bool:
        """Only subtopologies with state get standby tasks."""
        return bool(self.changelog_topics)

    def input_topics(self) -> tuple[str, ...]:
        """The topics its tasks read: task p reads partition p of each that has one."""
        return self.source_topics + tuple(t.name for t in self.repartition_source_topics)


@dataclass
class ConfiguredTopology:
    epoch: int
    # Subtopology id -> its configuration (sorted); None when the topics could not be decided.
    subtopologies: dict[str, Subtopology] | None
    to_create: list[InternalTopic] = field(default_factory=list)
    # (status code, detail) of what keeps it from being ready.
    status: tuple[int, str] | None = None

    @property
    def ready(self) -> bool:
        return self.status is None


class _NotConfigured(Exception):
    def __init__(self, code: int, detail: str) -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail


def summarize(topics: Iterable[str]) -> str:
    """Kafka's summarizeTopics: the first three names, then how many more."""
    names = list(topics)
    if not names:
        return "<none>"
    shown = ", ".join(names[:3])
    return shown + (f" and {len(names) - 3} additional topics" if len(names) > 3 else "")


def required_topics(topology: dict[str, Any]) -> set[str]:
    """Source, repartition source and changelog topics: a change to one of them (created,
    deleted, repartitioned) makes the group configure its topology again."""
    out: set[str] = set()
    for s in topology["subtopologies"]:
        out.update(s["source_topics"])
        out.update(t["name"] for t in s["repartition_source_topics"])
        out.update(t["name"] for t in s["state_changelog_topics"])
    return out


def configure(topology: dict[str, Any], partitions: PartitionCount) -> ConfiguredTopology:
    """The topology configured against the topics `partitions` knows; raises
    StreamsInvalidTopologyError for a topology no topics can satisfy."""
    epoch = topology["epoch"]
    subtopologies = topology["subtopologies"]
    try:
        missing = sorted(
            {t for s in subtopologies for t in s["source_topics"] if partitions(t) is None}
        )
        if missing:
            raise _NotConfigured(
                MISSING_SOURCE_TOPICS, f"Source topics {summarize(missing)} are missing."
            )
        decided = _decide(subtopologies, partitions)
        configured = {
            s["subtopology_id"]: _subtopology(s, partitions, decided)
            for s in sorted(subtopologies, key=lambda s: s["subtopology_id"])
        }
        to_create = _missing_internal(configured, partitions)
    except _NotConfigured as why:
        return ConfiguredTopology(epoch, None, [], (why.code, why.detail))
    status = None
    if to_create:
        names = summarize(t.name for t in to_create)
        status = (MISSING_INTERNAL_TOPICS, f"Internal topics are missing: {names}")
    return ConfiguredTopology(epoch, configured, to_create, status)


def _decide(subtopologies: list[dict[str, Any]], partitions: PartitionCount) -> dict[str, int]:
    """The partition counts of the internal topics: repartition topics (fixed, else from what
    feeds them), copartitioning, then changelogs (the most of their subtopology's inputs)."""
    decided: dict[str, int] = {}

    def count(topic: str) -> int | None:
        real = partitions(topic)
        return real if real is not None else decided.get(topic)

    decided.update(_repartition_counts(subtopologies, count))
    fixed = {
        t["name"] for s in subtopologies for t in s["repartition_source_topics"] if t["partitions"]
    }
    flexible = {
        t["name"]
        for s in subtopologies
        for t in s["repartition_source_topics"]
        if not t["partitions"]
    }
    for s in subtopologies:
        for group in s["copartition_groups"]:
            names = {s["source_topics"][i] for i in group["source_topics"]}
            names |= {
                s["repartition_source_topics"][i]["name"]
                for i in group["repartition_source_topics"]
            }
            decided.update(_copartition(names, fixed, flexible, count))
    for s in subtopologies:
        inputs = [*s["source_topics"], *(t["name"] for t in s["repartition_source_topics"])]
        counts = [count(t) for t in inputs]
        if not counts:
            raise errors.StreamsInvalidTopologyError(
                f"No source topics found for subtopology {s['subtopology_id']}"
            )
        most = max(c for c in counts if c is not None) if any(c is not None for c in counts) else 0
        for t in s["state_changelog_topics"]:
            decided[t["name"]] = most
    return decided


def _repartition_counts(
    subtopologies: list[dict[str, Any]], count: Callable[[str], int | None]
) -> dict[str, int]:
    """A repartition topic without a fixed count gets the most partitions of the inputs of the
    subtopologies that write to it, found by iterating until nothing is left to decide."""
    decided = {
        t["name"]: t["partitions"]
        for s in subtopologies
        for t in s["repartition_source_topics"]
        if t["partitions"]
    }
    while True:
        needed = progress = False
        for s in subtopologies:
            for sink in s["repartition_sink_topics"]:
                if sink in decided:
                    continue
                known = [decided.get(t["name"]) for t in s["repartition_source_topics"]]
                known += [count(t) for t in s["source_topics"]]
                found = [c for c in known if c is not None]
                if found:
                    decided[sink] = max(found)
                    progress = True
                else:
                    needed = True
        if not needed:
            break
        if not progress:
            raise errors.StreamsInvalidTopologyError(
                "Failed to compute number of partitions for all repartition topics. There may "
                "be loops in the topology that cannot be resolved."
            )
    for s in subtopologies:
        if any(t["name"] not in decided for t in s["repartition_source_topics"]):
            raise errors.StreamsInvalidTopologyError(
                "Failed to compute number of partitions for all repartition topics, because a "
                "repartition source topic is never used as a sink topic."
            )
    return decided


def _copartition(
    names: set[str], fixed: set[str], flexible: set[str], count: Callable[[str], int | None]
) -> dict[str, int]:
    """Kafka's CopartitionedTopicsEnforcer: copartitioned topics must have one partition count,
    which their repartition topics take."""
    if not names:
        return {}
    repartition = {n: count(n) or 0 for n in names if n in fixed or n in flexible}
    others = {n: count(n) or 0 for n in names if n not in repartition}
    if set(repartition) == names:
        if fixed:
            counts = {count(n) or 0 for n in fixed}
            if len(counts) > 1:
                raise _NotConfigured(INCORRECTLY_PARTITIONED_TOPICS, _differ(repartition))
            use = count(sorted(fixed)[0]) or 0
        else:
            use = max(repartition.values(), default=0)
            if use == 0:
                raise errors.StreamsInvalidTopologyError(
                    "All topics in the copartition group had undefined partition number: "
                    f"[{', '.join(sorted(repartition))}]"
                )
    else:
        if len(set(others.values())) > 1:
            raise _NotConfigured(INCORRECTLY_PARTITIONED_TOPICS, _differ(others))
        use = next(iter(others.values()))
    for name, current in repartition.items():
        if name in fixed and current != use:
            raise _NotConfigured(
                INCORRECTLY_PARTITIONED_TOPICS,
                f"Number of partitions [{current}] of repartition topic [{name}] doesn't match "
                f"number of partitions [{use}] of the source topic.",
            )
    return dict.fromkeys(repartition, use)


def _differ(counts: dict[str, int]) -> str:
    listed = ", ".join(f"{n}={c}" for n, c in sorted(counts.items()))
    return f"Following topics do not have the same number of partitions: [{{{listed}}}]"


def _internal(info: dict[str, Any], decided: dict[str, int]) -> InternalTopic:
    configs = tuple((c["key"], c["value"]) for c in info.get("topic_configs") or [])
    return InternalTopic(
        info["name"],
        info["partitions"] or decided.get(info["name"], 0),
        info["replication_factor"] or -1,
        configs,
    )


def _subtopology(
    s: dict[str, Any], partitions: PartitionCount, decided: dict[str, int]
) -> Subtopology:
    repartition = tuple(_internal(t, decided) for t in s["repartition_source_topics"])
    inputs = [*s["source_topics"], *(t.name for t in repartition)]
    counts = [partitions(t) or decided.get(t, 0) for t in inputs]
    return Subtopology(
        s["subtopology_id"],
        max(counts, default=0),
        tuple(sorted(s["source_topics"])),
        tuple(sorted(s["repartition_sink_topics"])),
        tuple(sorted(repartition, key=lambda t: t.name)),
        tuple(
            sorted(
                (_internal(t, decided) for t in s["state_changelog_topics"]), key=lambda t: t.name
            )
        ),
    )


def _missing_internal(
    configured: dict[str, Subtopology], partitions: PartitionCount
) -> list[InternalTopic]:
    """The internal topics that do not exist yet; one that exists with another partition
    count makes the topology unusable until it is fixed."""
    wanted: dict[str, InternalTopic] = {}
    for s in configured.values():
        for t in (*s.repartition_source_topics, *s.changelog_topics):
            wanted[t.name] = t
    out = []
    for name, topic in sorted(wanted.items()):
        found = partitions(name)
        if found is None:
            out.append(topic)
        elif found != topic.partitions:
            raise _NotConfigured(
                INCORRECTLY_PARTITIONED_TOPICS,
                f"Existing topic {name} has different number of partitions: expected "
                f"{topic.partitions}, found {found}",
            )
    return out

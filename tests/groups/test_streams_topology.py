"""A streams group's topology configured against the cluster's topics (Kafka 4.4's
InternalTopicManager), without a broker: the partition counts decided for repartition and
changelog topics, the topics to create, and the statuses and refusals Kafka gives, in its
words, when the topics cannot satisfy the topology."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from ferrolog import errors
from ferrolog.controller.coordinator.group.streams_topology import (
    INCORRECTLY_PARTITIONED_TOPICS,
    MISSING_INTERNAL_TOPICS,
    MISSING_SOURCE_TOPICS,
    configure,
)

from tests.groups.streams_raw import topic_info, word_count


def subtopology(
    sid: str,
    sources: Sequence[str] = (),
    sinks: Sequence[str] = (),
    repartition: Sequence[dict[str, Any]] = (),
    changelogs: Sequence[dict[str, Any]] = (),
    copartition: Sequence[dict[str, list[int]]] = (),
) -> dict[str, Any]:
    return {
        "subtopology_id": sid,
        "source_topics": list(sources),
        "source_topic_regex": [],
        "state_changelog_topics": list(changelogs),
        "repartition_sink_topics": list(sinks),
        "repartition_source_topics": list(repartition),
        "copartition_groups": list(copartition),
    }


def counts(**topics: int) -> Any:
    return lambda name: topics.get(name.replace("-", "_"))


def test_a_word_count_gets_its_internal_topics_sized_by_its_source() -> None:
    configured = configure(word_count("app", "words"), counts(words=6))
    assert configured.status is not None
    assert configured.status[0] == MISSING_INTERNAL_TOPICS
    assert configured.status[1] == (
        "Internal topics are missing: app-counts-changelog, app-counts-repartition"
    )
    assert [(t.name, t.partitions, t.replication_factor) for t in configured.to_create] == [
        ("app-counts-changelog", 6, -1),
        ("app-counts-repartition", 6, -1),
    ]
    assert configured.to_create[0].configs == (("cleanup.policy", "compact"),)
    assert configured.subtopologies is not None
    assert [s.tasks for s in configured.subtopologies.values()] == [6, 6]
    ready = configure(
        word_count("app", "words"),
        counts(words=6, app_counts_changelog=6, app_counts_repartition=6),
    )
    assert ready.ready


def test_missing_source_topics_are_named_three_at_most() -> None:
    topology = {
        "epoch": 0,
        "subtopologies": [subtopology("0", sources=["a", "b", "c", "d", "e"])],
    }
    configured = configure(topology, counts())
    assert (configured.status, configured.subtopologies) == (
        (MISSING_SOURCE_TOPICS, "Source topics a, b, c and 2 additional topics are missing."),
        None,
    )


def test_an_internal_topic_of_another_size_is_reported_not_created() -> None:
    configured = configure(
        word_count("app", "words"),
        counts(words=6, app_counts_changelog=3, app_counts_repartition=6),
    )
    assert configured.status == (
        INCORRECTLY_PARTITIONED_TOPICS,
        "Existing topic app-counts-changelog has different number of partitions: expected 6, "
        "found 3",
    )
    assert configured.to_create == []


def test_copartitioned_sources_must_agree() -> None:
    topology = {
        "epoch": 0,
        "subtopologies": [
            subtopology(
                "0",
                sources=["left", "right"],
                copartition=[
                    {
                        "source_topics": [0, 1],
                        "source_topic_regex": [],
                        "repartition_source_topics": [],
                    }
                ],
            )
        ],
    }
    configured = configure(topology, counts(left=4, right=6))
    assert configured.status == (
        INCORRECTLY_PARTITIONED_TOPICS,
        "Following topics do not have the same number of partitions: [{left=4, right=6}]",
    )


def test_a_repartition_topic_copartitioned_with_a_source_takes_its_size() -> None:
    """A join: subtopology 1 reads a repartition topic (fed by subtopology 0 from an
    eight-partition topic) copartitioned with a three-partition table topic."""
    topology = {
        "epoch": 0,
        "subtopologies": [
            subtopology("0", sources=["clicks"], sinks=["app-rekeyed"]),
            subtopology(
                "1",
                sources=["users"],
                repartition=[topic_info("app-rekeyed")],
                copartition=[
                    {
                        "source_topics": [0],
                        "source_topic_regex": [],
                        "repartition_source_topics": [0],
                    }
                ],
            ),
        ],
    }
    configured = configure(topology, counts(clicks=8, users=3))
    assert [(t.name, t.partitions) for t in configured.to_create] == [("app-rekeyed", 3)]


def test_a_repartition_topic_nobody_writes_is_an_invalid_topology() -> None:
    topology = {
        "epoch": 0,
        "subtopologies": [subtopology("0", repartition=[topic_info("app-orphan")])],
    }
    with pytest.raises(errors.StreamsInvalidTopologyError, match="never used as a sink topic"):
        configure(topology, counts())


def test_repartition_topics_that_only_feed_each_other_are_an_invalid_topology() -> None:
    topology = {
        "epoch": 0,
        "subtopologies": [
            subtopology("0", sinks=["app-b"], repartition=[topic_info("app-a")]),
            subtopology("1", sinks=["app-a"], repartition=[topic_info("app-b")]),
        ],
    }
    with pytest.raises(errors.StreamsInvalidTopologyError, match="loops in the topology"):
        configure(topology, counts())

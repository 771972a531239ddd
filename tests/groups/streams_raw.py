"""A streams group member speaking the raw protocol (StreamsGroupHeartbeat v1), as Kafka
Streams' consumer does with `group.protocol=streams`, for tests that check what the broker
answers step by step."""

from __future__ import annotations

import time
import uuid
from typing import Any

from ferrolog.client.connection import Connection
from ferrolog.protocol.messages import ApiKey

from tests.groups.share_tools import connect, find_coordinator

COORDINATOR_LOAD_IN_PROGRESS = 14
MISSING_SOURCE_TOPICS = 1
MISSING_INTERNAL_TOPICS = 3
ASSIGNMENT_DELAYED = 5


def topic_info(name: str, partitions: int = 0, **configs: str) -> dict[str, Any]:
    return {
        "name": name,
        "partitions": partitions,
        "replication_factor": 0,
        "topic_configs": [{"key": k.replace("_", "."), "value": v} for k, v in configs.items()],
    }


def word_count(app: str, source: str) -> dict[str, Any]:
    """The topology Kafka Streams sends for a word count: subtopology 0 reads `source` and
    writes the repartition topic, subtopology 1 reads it and counts into a store."""
    repartition = f"{app}-counts-repartition"
    return {
        "epoch": 0,
        "subtopologies": [
            {
                "subtopology_id": "0",
                "source_topics": [source],
                "source_topic_regex": [],
                "state_changelog_topics": [],
                "repartition_sink_topics": [repartition],
                "repartition_source_topics": [],
                "copartition_groups": [],
            },
            {
                "subtopology_id": "1",
                "source_topics": [],
                "source_topic_regex": [],
                "state_changelog_topics": [
                    topic_info(f"{app}-counts-changelog", cleanup_policy="compact")
                ],
                "repartition_sink_topics": [],
                "repartition_source_topics": [topic_info(repartition)],
                "copartition_groups": [],
            },
        ],
    }


def tasks(response: dict[str, Any], kind: str = "active_tasks") -> dict[str, list[int]] | None:
    listed = response[kind]
    if listed is None:
        return None
    return {t["subtopology_id"]: sorted(t["partitions"]) for t in listed}


def statuses(response: dict[str, Any]) -> dict[int, str]:
    return {s["status_code"]: s["status_detail"] for s in response["status"] or []}


class Member:
    """One stream thread's consumer: joins with a topology, heartbeats with what it owns."""

    def __init__(
        self,
        conn: Connection,
        group: str,
        topology: dict[str, Any] | None,
        process: str | None = None,
    ) -> None:
        self.conn, self.group, self.topology = conn, group, topology
        self.member_id = str(uuid.uuid4())
        self.process = process or str(uuid.uuid4())
        self.epoch = 0
        self.owned: dict[str, list[int]] = {}

    def heartbeat(self, report: bool = False, **fields: Any) -> dict[str, Any]:
        """One heartbeat; `report`: send the owned tasks (as the client does after a change)."""
        joining = self.epoch == 0
        owned = [{"subtopology_id": s, "partitions": ps} for s, ps in sorted(self.owned.items())]
        body: Any = {
            "group_id": self.group,
            "member_id": self.member_id,
            "member_epoch": self.epoch,
            "endpoint_information_epoch": -1,
            "instance_id": None,
            "rack_id": None,
            "rebalance_timeout_ms": 30000 if joining else -1,
            "topology": self.topology if joining else None,
            "active_tasks": owned if joining or report else None,
            "standby_tasks": [] if joining or report else None,
            "warmup_tasks": [] if joining or report else None,
            "process_id": self.process if joining else None,
            "user_endpoint": None,
            "client_tags": [] if joining else None,
            "task_offsets": [] if joining else None,
            "task_end_offsets": [] if joining else None,
            "shutdown_application": False,
            **fields,
        }
        response: dict[str, Any] = dict(self.conn.request(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, body))
        if response["error_code"] == 0:
            self.epoch = response["member_epoch"]
            given = tasks(response)
            if given is not None:
                self.owned = given
        return response

    def join(self) -> dict[str, Any]:
        """Joins, waiting out a coordinator that is still loading."""
        deadline = time.monotonic() + 30
        while (response := self.heartbeat())["error_code"] == COORDINATOR_LOAD_IN_PROGRESS:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        return response

    def until(self, done: Any, timeout: float = 30) -> dict[str, Any]:
        """Heartbeats (reporting what it owns) until `done(response)`."""
        deadline = time.monotonic() + timeout
        while True:
            response = self.heartbeat(report=True)
            if done(response):
                return response
            assert time.monotonic() < deadline, response
            time.sleep(0.1)

    def leave(self) -> dict[str, Any]:
        response = self.heartbeat(member_epoch=-1)
        return response


def streams_connection(bootstrap: str, group: str) -> Connection:
    conn = connect(bootstrap, "streams-test")
    find_coordinator(conn, group)
    return conn


def describe(conn: Connection, group: str) -> dict[str, Any]:
    body: Any = {
        "group_ids": [group],
        "include_authorized_operations": False,
        "include_topology_description": False,
    }
    (described,) = conn.request(ApiKey.STREAMS_GROUP_DESCRIBE, 1, body)["groups"]
    return dict(described)

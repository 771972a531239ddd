"""Every ZooKeeper path ferrolog uses and its JSON encoding, in one place.

The layout follows Kafka's ZooKeeper mode so that the tree reads familiarly in `zkCli.sh`:

- `/cluster/id` (persistent): `{"version":"1","id":<cluster id>}`
- `/brokers/ids/<id>` (ephemeral): host, port, endpoints, rack, timestamp
- `/brokers/topics/<t>` (persistent): `{"version":3,"topic_id":<base64>,"partitions":{...}}`
  where partitions maps `"0"` to the replica list, preferred leader first
- `/brokers/topics/<t>/partitions/<p>/state` (persistent): leader, leader_epoch, isr,
  controller_epoch
- `/config/topics/<t>` (persistent): `{"version":1,"config":{...}}`, the topic overrides
- `/config/clients/<client-id>`, `/config/users/<user>` and
  `/config/users/<user>/clients/<client-id>` (persistent): `{"version":1,"config":{...}}`, the
  client quotas of an entity; `<default>` names the default entity, other names are sanitized
  as Kafka's `Sanitizer` does (URL-encoded)
- `/config/brokers/<id>` and `/config/brokers/<default>` (persistent):
  `{"version":1,"config":{...}}`, the dynamic configs of one broker and the cluster default
- `/config/groups/<group>` (persistent): `{"version":1,"config":{...}}`, a group's configs
  (KIP-848's resource type GROUP; Kafka keeps them only in KRaft's metadata log, so ferrolog
  lays them out as the other config entities), the name sanitized as Kafka's `Sanitizer` does
- `/config/changes/config_change_<seq>` (persistent sequential): `{"version":2,
  "entity_path":"users/<user>/clients/<client-id>"}` (or `brokers/<id>`, `groups/<group>`, ...),
  one per changed quota, broker or group config entity, which every broker watches to re-read
  that entity; removed after `CONFIG_CHANGE_EXPIRATION_MS`
- `/kafka-acl/<ResourceType>/<name>` and `/kafka-acl-extended/prefixed/<ResourceType>/<name>`
  (persistent): `{"version":1,"acls":[{"principal","permissionType","operation","host"}]}`, the
  ACLs of a literal and of a prefixed resource pattern (`<ResourceType>` as Kafka names it:
  `Topic`, `Group`, `Cluster`, `TransactionalId`)
- `/kafka-acl-changes/acl_changes_<seq>` (`TOPIC:<name>`) and
  `/kafka-acl-extended-changes/acl_changes_<seq>` (`{"version":1,"resourceType","name",
  "patternType"}`) (persistent sequential): one per changed resource pattern, which every
  broker watches to re-read it
- `/controller` (ephemeral): `{"version":1,"brokerid":<id>,"timestamp":...}`
- `/controller_epoch` (persistent): the epoch as a decimal string
- `/admin/reassign_partitions` (persistent): `{"version":1,"partitions":[{topic, partition,
  replicas}]}`, the pending reassignments
- `/admin/preferred_replica_election` (persistent): `{"version":1,"partitions":[{topic,
  partition}]}`
- `/feature` (persistent): `{"version":2,"status":1,"features":{"<name>":{"max_version_level":
  <level>}}}`, the finalized features (Kafka's `FeatureZNode` v2; status 1 is "enabled"),
  created empty by the controller; written only by the controller, and its `Stat.version` is
  the finalized features' epoch, as in Kafka
- `/latest_producer_id_block` (persistent): `{"version":1,"broker","block_start","block_end"}`
- `/ferrolog/controlled_shutdown/<id>` (ephemeral, empty): broker `<id>` asks to lose its
  leaderships
- `/ferrolog/unclean_leader_election` (persistent): as the preferred-election znode, the
  partitions an ElectLeaders request asked to elect uncleanly
- `/log_dir_event_notification/log_dir_event_<seq>` (persistent sequential):
  `{"version":1,"broker":<id>,"event":1}`, Kafka's notice that a log directory of broker
  `<id>` went offline (event 1: LogDirFailure); the controller acts on it and deletes it
- `/ferrolog/offline_replicas/<id>` (ephemeral): `{"version":1,"partitions":[{topic,
  partition}]}`, the replicas of broker `<id>` on its offline log directories. Kafka's
  controller learns them from the broker's LeaderAndIsr answers (KAFKA_STORAGE_ERROR per
  partition) and keeps them in memory until the broker restarts; ferrolog's controller sends
  no requests, so the broker publishes them, for as long as its session lives

The state znode's own ZooKeeper version (its `Stat.version`) is the compare-and-set token
exposed as `PartitionState.version`; the `"version"` key inside the JSON is the format version,
as in Kafka. Controlled shutdown and unclean election requests, and offline replicas, are
ferrolog's own (Kafka's ZK-mode brokers and controller exchanged those as RPCs).
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
import urllib.parse
from typing import Any

from ..acl.model import (
    AccessControlEntry,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
    camel_name,
    parse_name,
)
from ..quota.entity import CLIENT_ID, USER, ClientQuotaEntity
from ..scram import BY_NAME as SCRAM_MECHANISMS
from ..scram import ScramCredential
from .base import BrokerRegistration, Endpoint, PartitionState, TopicRecord

CLUSTER_ID = "/cluster/id"
BROKER_IDS = "/brokers/ids"
TOPICS = "/brokers/topics"
TOPIC_CONFIGS = "/config/topics"
CONFIG_USERS = "/config/users"
CONFIG_CLIENTS = "/config/clients"
CONFIG_BROKERS = "/config/brokers"
CONFIG_GROUPS = "/config/groups"
CONFIG_CHANGES = "/config/changes"
CONFIG_CHANGE_PREFIX = "config_change_"
# Kafka's brokers purge change notifications this old.
CONFIG_CHANGE_EXPIRATION_MS = 15 * 60 * 1000
DEFAULT_ENTITY = "<default>"
CONTROLLER = "/controller"
CONTROLLER_EPOCH = "/controller_epoch"
REASSIGN = "/admin/reassign_partitions"
PREFERRED_ELECTION = "/admin/preferred_replica_election"
PRODUCER_ID_BLOCK = "/latest_producer_id_block"
FEATURE = "/feature"
CONTROLLED_SHUTDOWN = "/ferrolog/controlled_shutdown"
UNCLEAN_ELECTION = "/ferrolog/unclean_leader_election"
LOG_DIR_EVENT_NOTIFICATION = "/log_dir_event_notification"
LOG_DIR_EVENT_PREFIX = "log_dir_event_"
LOG_DIR_FAILURE_EVENT = 1  # Kafka's LogDirEventNotificationHandler.LogDirFailureEvent
OFFLINE_REPLICAS = "/ferrolog/offline_replicas"
ACL_LITERAL = "/kafka-acl"
ACL_PREFIXED = "/kafka-acl-extended/prefixed"
ACL_LITERAL_CHANGES = "/kafka-acl-changes"
ACL_EXTENDED_CHANGES = "/kafka-acl-extended-changes"
ACL_CHANGE_PREFIX = "acl_changes_"

# Created at startup so that children watches and creates below them never miss a parent.
PERSISTENT_ROOTS = (
    BROKER_IDS,
    TOPICS,
    TOPIC_CONFIGS,
    CONFIG_USERS,
    CONFIG_CLIENTS,
    CONFIG_BROKERS,
    CONFIG_GROUPS,
    CONFIG_CHANGES,
    "/admin",
    "/cluster",
    CONTROLLED_SHUTDOWN,
    LOG_DIR_EVENT_NOTIFICATION,
    OFFLINE_REPLICAS,
    ACL_LITERAL,
    ACL_PREFIXED,
    ACL_LITERAL_CHANGES,
    ACL_EXTENDED_CHANGES,
)


def broker_path(node_id: int) -> str:
    return f"{BROKER_IDS}/{node_id}"


def topic_path(topic: str) -> str:
    return f"{TOPICS}/{topic}"


def partitions_path(topic: str) -> str:
    return f"{TOPICS}/{topic}/partitions"


def partition_path(topic: str, partition: int) -> str:
    return f"{TOPICS}/{topic}/partitions/{partition}"


def state_path(topic: str, partition: int) -> str:
    return f"{TOPICS}/{topic}/partitions/{partition}/state"


def topic_config_path(topic: str) -> str:
    return f"{TOPIC_CONFIGS}/{topic}"


def shutdown_path(node_id: int) -> str:
    return f"{CONTROLLED_SHUTDOWN}/{node_id}"


def offline_replicas_path(node_id: int) -> str:
    return f"{OFFLINE_REPLICAS}/{node_id}"


def _dumps(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


def _loads(data: bytes) -> dict[str, Any]:
    value = json.loads(data.decode())
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {data[:80]!r}")
    return value


# /cluster/id


def encode_cluster_id(cluster_id: str) -> bytes:
    return _dumps({"version": "1", "id": cluster_id})


def decode_cluster_id(data: bytes) -> str:
    return str(_loads(data)["id"])


# /brokers/ids/<id>


def encode_broker(registration: BrokerRegistration) -> bytes:
    """Kafka's layout (`BrokerIdZNode`, version 5): every listener in `endpoints` and
    `listener_security_protocol_map`; `host` and `port` are the first PLAINTEXT endpoint's,
    null and -1 without one, as Kafka writes them."""
    endpoints = registration.endpoints or (
        Endpoint("PLAINTEXT", registration.host, registration.port, "PLAINTEXT"),
    )
    plaintext = next((e for e in endpoints if e.security_protocol == "PLAINTEXT"), None)
    return _dumps(
        {
            "version": 5,
            "host": plaintext.host if plaintext else None,
            "port": plaintext.port if plaintext else -1,
            "endpoints": [str(e) for e in endpoints],
            "listener_security_protocol_map": {
                e.listener_name: e.security_protocol for e in endpoints
            },
            "rack": registration.rack,
            "jmx_port": -1,
            "features": {},
            "timestamp": str(int(time.time() * 1000)),
        }
    )


def decode_broker(node_id: int, data: bytes) -> BrokerRegistration:
    raw = _loads(data)
    rack = raw.get("rack")
    protocols = raw.get("listener_security_protocol_map") or {}
    endpoints = []
    for text in raw.get("endpoints") or []:
        name, _, address = str(text).partition("://")
        endpoint_host, _, endpoint_port = address.rpartition(":")
        # Before version 4 the listener name was the security protocol.
        protocol = str(protocols.get(name, name))
        endpoints.append(Endpoint(name, endpoint_host.strip("[]"), int(endpoint_port), protocol))
    host: str | None = raw.get("host")
    port = int(raw.get("port", -1))
    if (host is None or port < 0) and endpoints:
        host, port = endpoints[0].host, endpoints[0].port
    return BrokerRegistration(
        node_id=node_id,
        host=str(host),
        port=port,
        rack=rack,
        endpoints=tuple(endpoints),
    )


# /brokers/topics/<t> and /config/topics/<t>


def encode_topic(topic: TopicRecord) -> bytes:
    return _dumps(
        {
            "version": 3,
            "topic_id": base64.urlsafe_b64encode(topic.topic_id).rstrip(b"=").decode(),
            "partitions": {str(p): list(r) for p, r in sorted(topic.assignment.items())},
            "adding_replicas": {},
            "removing_replicas": {},
        }
    )


def decode_topic(name: str, data: bytes, configs: dict[str, str]) -> TopicRecord:
    raw = _loads(data)
    encoded = str(raw["topic_id"])
    topic_id = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    return TopicRecord(
        name=name,
        topic_id=topic_id,
        assignment={int(p): [int(b) for b in r] for p, r in raw["partitions"].items()},
        configs=configs,
    )


def encode_topic_config(configs: dict[str, str]) -> bytes:
    """A topic's overrides, or a broker entity's dynamic configs (the same format)."""
    return _dumps({"version": 1, "config": dict(configs)})


def decode_topic_config(data: bytes) -> dict[str, str]:
    if not data:
        return {}
    return {str(k): str(v) for k, v in _loads(data).get("config", {}).items()}


# /brokers/topics/<t>/partitions/<p>/state


def encode_state(state: PartitionState) -> bytes:
    return _dumps(
        {
            "version": 1,
            "leader": state.leader,
            "leader_epoch": state.leader_epoch,
            "isr": list(state.isr),
            "controller_epoch": state.controller_epoch,
        }
    )


def decode_state(data: bytes, zk_version: int) -> PartitionState:
    raw = _loads(data)
    return PartitionState(
        leader=int(raw["leader"]),
        leader_epoch=int(raw["leader_epoch"]),
        isr=[int(b) for b in raw["isr"]],
        controller_epoch=int(raw["controller_epoch"]),
        version=zk_version,
    )


# /controller and /controller_epoch


def encode_controller(node_id: int) -> bytes:
    return _dumps({"version": 1, "brokerid": node_id, "timestamp": str(int(time.time() * 1000))})


def decode_controller(data: bytes) -> int:
    return int(_loads(data)["brokerid"])


def encode_controller_epoch(epoch: int) -> bytes:
    return str(epoch).encode()


def decode_controller_epoch(data: bytes) -> int:
    return int(data.decode() or "0")


# /admin/reassign_partitions and /admin/preferred_replica_election


def encode_reassignments(targets: dict[tuple[str, int], list[int]]) -> bytes:
    return _dumps(
        {
            "version": 1,
            "partitions": [
                {"topic": t, "partition": p, "replicas": list(r)}
                for (t, p), r in sorted(targets.items())
            ],
        }
    )


def decode_reassignments(data: bytes) -> dict[tuple[str, int], list[int]]:
    return {
        (str(e["topic"]), int(e["partition"])): [int(b) for b in e["replicas"]]
        for e in _loads(data).get("partitions", [])
    }


def encode_preferred(partitions: set[tuple[str, int]]) -> bytes:
    return _dumps(
        {"version": 1, "partitions": [{"topic": t, "partition": p} for t, p in sorted(partitions)]}
    )


def decode_preferred(data: bytes) -> set[tuple[str, int]]:
    return {(str(e["topic"]), int(e["partition"])) for e in _loads(data).get("partitions", [])}


# /log_dir_event_notification and /ferrolog/offline_replicas


def encode_log_dir_event(node_id: int) -> bytes:
    return _dumps({"version": 1, "broker": node_id, "event": LOG_DIR_FAILURE_EVENT})


def decode_log_dir_event(data: bytes) -> int:
    """The broker a log directory event names."""
    return int(_loads(data)["broker"])


encode_offline_replicas = encode_preferred
decode_offline_replicas = decode_preferred


# /feature

FEATURE_ZNODE_VERSION = 2  # Kafka's FeatureZNode.V2 (3.3+): no min_version_level
FEATURE_ENABLED = 1  # FeatureZNodeStatus.Enabled; 0 (Disabled) means no feature is finalized


def encode_features(levels: dict[str, int]) -> bytes:
    return _dumps(
        {
            "version": FEATURE_ZNODE_VERSION,
            "status": FEATURE_ENABLED,
            "features": {n: {"max_version_level": v} for n, v in sorted(levels.items()) if v > 0},
        }
    )


def decode_features(data: bytes) -> tuple[bool, dict[str, int]]:
    """Whether the znode is enabled, and its finalized levels (none when disabled). Version 1
    (Kafka before 3.3) also had a `min_version_level` per feature, which is not needed. A
    znode that does not parse counts as disabled (the controller then rewrites it), rather
    than stopping every broker's reads of the cluster."""
    try:
        raw = _loads(data)
        if raw.get("status") != FEATURE_ENABLED:
            return False, {}
        features = raw.get("features") or {}
        return True, {str(n): int(v["max_version_level"]) for n, v in features.items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return False, {}


# /latest_producer_id_block


def encode_producer_id_block(node_id: int, start: int, end: int) -> bytes:
    return _dumps(
        {"version": 1, "broker": node_id, "block_start": str(start), "block_end": str(end)}
    )


def decode_producer_id_block_end(data: bytes) -> int:
    """The last id handed out so far (-1: none)."""
    if not data:
        return -1
    return int(_loads(data)["block_end"])


# /config/users, /config/clients and /config/changes (client quotas)


def sanitize(name: str) -> str:
    """Kafka's `Sanitizer.sanitize`: URL encoding, with `*` and spaces encoded too, so any
    name is one znode name and none is `<default>`. Beyond Kafka, "." and ".." are encoded
    too: ZooKeeper refuses them as znode names (`ferrolog fuzz` found a user ".." failing
    AlterUserScramCredentials), and nothing else can be stored under them anyway."""
    if name in (".", ".."):
        return name.replace(".", "%2E")
    return urllib.parse.quote(name, safe="-_.").replace("~", "%7E")


def desanitize(name: str) -> str:
    return urllib.parse.unquote(name)


def _znode_name(name: str | None) -> str:
    return DEFAULT_ENTITY if name is None else sanitize(name)


def _entity_name(znode: str) -> str | None:
    return None if znode == DEFAULT_ENTITY else desanitize(znode)


def quota_entity_path(entity: ClientQuotaEntity) -> str:
    """`users/<user>/clients/<client-id>`, `users/<user>` or `clients/<client-id>`: the path
    under `/config`, as change notifications name it."""
    parts = entity.as_dict()
    if USER in parts:
        path = f"users/{_znode_name(parts[USER])}"
        if CLIENT_ID in parts:
            path += f"/clients/{_znode_name(parts[CLIENT_ID])}"
        return path
    return f"clients/{_znode_name(parts[CLIENT_ID])}"


def quota_entity_of_path(entity_path: str) -> ClientQuotaEntity | None:
    """The quota entity a change notification names (None: not a quota entity)."""
    parts = entity_path.split("/")
    if len(parts) == 2 and parts[0] == "clients":
        return quota_entity(False, parts[1])
    if len(parts) == 2 and parts[0] == "users":
        return quota_entity(parts[1], False)
    if len(parts) == 4 and parts[0] == "users" and parts[2] == "clients":
        return quota_entity(parts[1], parts[3])
    return None


def quota_entity(user: str | bool, client: str | bool) -> ClientQuotaEntity:
    """The entity of znode names (`False`: no such part)."""
    return ClientQuotaEntity.of(
        user=user if user is False else _entity_name(str(user)),
        client_id=client if client is False else _entity_name(str(client)),
    )


def quota_config(quotas: dict[str, float]) -> dict[str, str]:
    """The config values of quotas, as Kafka writes them (integral rates without a point)."""
    return {k: str(int(v)) if v.is_integer() else repr(v) for k, v in sorted(quotas.items())}


def encode_entity_config(config: dict[str, str]) -> bytes:
    """A quota entity's config map (quotas and, for a user, SCRAM credentials)."""
    return _dumps({"version": 1, "config": dict(config)})


def decode_entity_config(data: bytes) -> dict[str, str]:
    if not data:
        return {}
    return {str(k): str(v) for k, v in _loads(data).get("config", {}).items()}


def encode_quota_config(quotas: dict[str, float]) -> bytes:
    return encode_entity_config(quota_config(quotas))


def is_scram_key(key: str) -> bool:
    return key in SCRAM_MECHANISMS


def decode_quota_config(data: bytes) -> dict[str, float]:
    """The quotas of an entity's config (its SCRAM credentials left out)."""
    config = decode_entity_config(data)
    return {k: float(v) for k, v in config.items() if not is_scram_key(k)}


def decode_scram_config(data: bytes) -> dict[str, ScramCredential]:
    """The SCRAM credentials of a user's config, by mechanism name."""
    credentials: dict[str, ScramCredential] = {}
    for key, value in decode_entity_config(data).items():
        if is_scram_key(key):
            # One malformed value (written by hand) loses that credential, not the sync of
            # every config entity.
            with contextlib.suppress(ValueError):
                credentials[key] = ScramCredential.from_config(value)
    return credentials


def scram_user_path(user: str) -> str:
    """`users/<sanitized user>`: the path under `/config` of a user's config, as change
    notifications name it."""
    return f"users/{sanitize(user)}"


def scram_user_of_path(entity_path: str) -> str | None:
    """The user whose SCRAM credentials a change notification may have changed (None: the
    entity has none: a client, the default user, a user's client)."""
    parts = entity_path.split("/")
    if len(parts) == 2 and parts[0] == "users" and parts[1] != DEFAULT_ENTITY:
        return desanitize(parts[1])
    return None


def encode_config_change(entity_path: str) -> bytes:
    return _dumps({"version": 2, "entity_path": entity_path})


def decode_config_change(data: bytes) -> str:
    """The entity path a change notification names."""
    return str(_loads(data).get("entity_path", ""))


# /config/brokers


def broker_entity_path(broker: int | None) -> str:
    """`brokers/<id>`, or `brokers/<default>` for the cluster default (None)."""
    return f"brokers/{DEFAULT_ENTITY if broker is None else broker}"


def broker_of_path(entity_path: str) -> int | bool | None:
    """The broker a change notification names: its id, None for the default, False when it
    names no broker entity."""
    kind, _, name = entity_path.partition("/")
    if kind != "brokers":
        return False
    if name == DEFAULT_ENTITY:
        return None
    return int(name) if name.isdigit() else False


def group_entity_path(group: str) -> str:
    """`groups/<sanitized group>`: the path under `/config` of a group's configs."""
    return f"groups/{sanitize(group)}"


def group_of_path(entity_path: str) -> str | None:
    """The group a change notification names (None: it names no group entity)."""
    kind, _, name = entity_path.partition("/")
    return desanitize(name) if kind == "groups" and name and "/" not in name else None


# ACLs (Kafka's `ZkAclStore`, `ResourceZNode` and `ZkAclChangeStore`)


def acl_root(pattern_type: PatternType) -> str:
    return ACL_LITERAL if pattern_type == PatternType.LITERAL else ACL_PREFIXED


def acl_path(pattern: ResourcePattern) -> str:
    return f"{acl_root(pattern.pattern_type)}/{camel_name(pattern.resource_type)}/{pattern.name}"


def acls_json(entries: frozenset[AccessControlEntry]) -> dict[str, Any]:
    """Kafka's JSON of a resource pattern's ACLs (`AclEntry.toJsonCompatibleMap`)."""
    acls = [
        {
            "principal": e.principal,
            "permissionType": camel_name(e.permission_type),
            "operation": camel_name(e.operation),
            "host": e.host,
        }
        for e in sorted(entries)
    ]
    return {"version": 1, "acls": acls}


def encode_acls(entries: frozenset[AccessControlEntry]) -> bytes:
    return _dumps(acls_json(entries))


def decode_acls(data: bytes) -> frozenset[AccessControlEntry]:
    return acls_from_json(_loads(data)) if data else frozenset()


def acls_from_json(value: dict[str, Any]) -> frozenset[AccessControlEntry]:
    return frozenset(
        AccessControlEntry(
            principal=a["principal"],
            host=a["host"],
            operation=parse_name(AclOperation, a["operation"]),
            permission_type=parse_name(AclPermissionType, a["permissionType"]),
        )
        for a in value.get("acls", [])
    )


def acl_changes_path(pattern_type: PatternType) -> str:
    if pattern_type == PatternType.LITERAL:
        return ACL_LITERAL_CHANGES
    return ACL_EXTENDED_CHANGES


def encode_acl_change(pattern: ResourcePattern) -> bytes:
    """Kafka's change notification: `TOPIC:<name>` for a literal pattern, JSON for others."""
    if pattern.pattern_type == PatternType.LITERAL:
        return f"{pattern.resource_type.name}:{pattern.name}".encode()
    return _dumps(
        {
            "version": 1,
            "resourceType": pattern.resource_type.name,
            "name": pattern.name,
            "patternType": pattern.pattern_type.name,
        }
    )


def decode_acl_change(changes_path: str, data: bytes) -> ResourcePattern:
    """Raises ValueError (or KeyError) for a notification that is not Kafka's."""
    if changes_path == ACL_LITERAL_CHANGES:
        resource_type, sep, name = data.decode().partition(":")
        if not sep:
            raise ValueError(f"not a resource type and name: {data!r}")
        return ResourcePattern(parse_name(ResourceType, resource_type), name, PatternType.LITERAL)
    event = _loads(data)
    return ResourcePattern(
        parse_name(ResourceType, event["resourceType"]),
        event["name"],
        parse_name(PatternType, event["patternType"]),
    )

"""ACLs in the metadata store: Kafka's ZooKeeper paths, JSON and change notifications
(`zk_paths`), the single-node store keeping them across a restart in the same layout, and the
manager's DescribeAcls/DeleteAcls filters and CreateAcls checks with Kafka's rules."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from ferrolog.controller.acl.manager import AclControlManager
from ferrolog.controller.acl.model import (
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from ferrolog.controller.store import zk_acls
from ferrolog.controller.store import zk_paths as paths
from ferrolog.controller.store.local import FILE_NAME, LocalStore
from ferrolog.errors import InvalidRequestError

ALICE_READ = AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
BOB_DENY = AccessControlEntry("User:bob", "10.0.0.1", AclOperation.ALL, AclPermissionType.DENY)
ORDERS = ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL)
PAY = ResourcePattern(ResourceType.TRANSACTIONAL_ID, "pay", PatternType.PREFIXED)


def test_zookeeper_layout_is_kafkas() -> None:
    assert zk_acls.acl_path(ORDERS) == "/kafka-acl/Topic/orders"
    assert zk_acls.acl_path(PAY) == "/kafka-acl-extended/prefixed/TransactionalId/pay"
    assert json.loads(zk_acls.encode_acls(frozenset({ALICE_READ, BOB_DENY}))) == {
        "version": 1,
        "acls": [
            {"principal": "User:alice", "permissionType": "Allow", "operation": "Read",
             "host": "*"},
            {"principal": "User:bob", "permissionType": "Deny", "operation": "All",
             "host": "10.0.0.1"},
        ],
    }  # fmt: skip
    # Kafka's own spellings decode, whichever case it wrote.
    kafka = b'{"version":1,"acls":[{"principal":"User:x","permissionType":"Allow",'
    kafka += b'"operation":"ClusterAction","host":"*"}]}'
    (entry,) = zk_acls.decode_acls(kafka)
    assert entry.operation == AclOperation.CLUSTER_ACTION
    assert zk_acls.encode_acl_change(ORDERS) == b"TOPIC:orders"
    assert zk_acls.decode_acl_change(paths.ACL_LITERAL_CHANGES, b"Topic:a:b") == ResourcePattern(
        ResourceType.TOPIC, "a:b", PatternType.LITERAL
    )
    change = zk_acls.encode_acl_change(PAY)
    assert json.loads(change) == {
        "version": 1, "resourceType": "TRANSACTIONAL_ID", "name": "pay",
        "patternType": "PREFIXED",
    }  # fmt: skip
    assert zk_acls.decode_acl_change(paths.ACL_EXTENDED_CHANGES, change) == PAY


def test_local_store_keeps_acls_across_a_restart(tmp_path: Path) -> None:
    async def run() -> None:
        store = LocalStore(tmp_path)
        await store.start()
        pushed: list[list[tuple[int, int, str, str, str, int, int]]] = []
        manager = AclControlManager(store, pushed.append)
        await manager.load()
        results = await manager.create(
            [
                AclBinding(ORDERS, ALICE_READ),
                AclBinding(PAY, BOB_DENY),
                AclBinding(ORDERS, ALICE_READ),
            ]
        )
        assert results == [None, None, None]
        # What the native authorizer gets: Kafka's codes, the repeated ACL once.
        assert sorted(pushed[-1]) == [
            (2, 3, "orders", "User:alice", "*", 3, 3),
            (5, 4, "pay", "User:bob", "10.0.0.1", 2, 2),
        ]
        await store.close()
        stored = json.loads((tmp_path / FILE_NAME).read_text())["acls"]
        assert stored["/kafka-acl/Topic/orders"] == zk_acls.acls_json(frozenset({ALICE_READ}))
        reopened = LocalStore(tmp_path)
        await reopened.start()
        assert await reopened.acls() == {ORDERS: {ALICE_READ}, PAY: {BOB_DENY}}
        await reopened.close()

    asyncio.run(run())


def test_filters_and_checks_follow_kafka(tmp_path: Path) -> None:
    async def run() -> None:
        store = LocalStore(tmp_path)
        await store.start()
        manager = AclControlManager(store)
        await manager.load()
        wildcard = ResourcePattern(ResourceType.TOPIC, "*", PatternType.LITERAL)
        prefix = ResourcePattern(ResourceType.TOPIC, "ord", PatternType.PREFIXED)
        bindings = [AclBinding(p, ALICE_READ) for p in (ORDERS, wildcard, prefix)]
        bad_cluster = AclBinding(
            ResourcePattern(ResourceType.CLUSTER, "other", PatternType.LITERAL), ALICE_READ
        )
        bad_principal = AclBinding(
            ORDERS, AccessControlEntry("alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
        )
        # Not znode names in Kafka's ZooKeeper layout: refused rather than failing the store.
        unstorable = [
            AclBinding(ResourcePattern(ResourceType.GROUP, name, PatternType.LITERAL), ALICE_READ)
            for name in ("a/b", "..")
        ]
        results = await manager.create([*bindings, bad_cluster, bad_principal, *unstorable])
        assert results[:3] == [None, None, None]
        assert all(isinstance(r, InvalidRequestError) for r in results[3:])

        def described(name: str | None, pattern_type: PatternType) -> set[ResourcePattern]:
            f = AclBindingFilter(ResourceType.TOPIC, name, pattern_type, None, None,
                                 AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
            return {b.pattern for b in manager.describe(f)}

        assert described("orders", PatternType.MATCH) == {ORDERS, wildcard, prefix}
        assert described("other", PatternType.MATCH) == {wildcard}
        assert described("orders", PatternType.ANY) == {ORDERS}
        assert described(None, PatternType.PREFIXED) == {prefix}
        unknown = AclBindingFilter(ResourceType.TOPIC, None, PatternType.UNKNOWN, None, None,
                                   AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
        deleted = await manager.delete(
            [
                AclBindingFilter(ResourceType.ANY, None, PatternType.LITERAL, "User:alice", None,
                                 AclOperation.READ, AclPermissionType.ALLOW),
                unknown,
            ]
        )  # fmt: skip
        assert {b.pattern for b in deleted[0]} == {ORDERS, wildcard}  # type: ignore[union-attr]
        assert isinstance(deleted[1], InvalidRequestError)
        assert set(await store.acls()) == {prefix}
        await store.close()

    asyncio.run(run())

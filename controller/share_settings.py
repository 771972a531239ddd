"""What the native core's share-partitions apply when it serves ShareFetch and
ShareAcknowledge: whether share groups are on (`share.version` finalized at 1 or more), the
broker's `group.share.*` settings and each group's own `share.*` configs, resolved here and
pushed to the native core whenever the finalized features or a group's configs change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from ferrolog.config import BrokerConfig

from .group_configs import GroupConfigs, auto_reset_code, group_defaults
from .store.base import FinalizedFeatures

SHARE_VERSION = "share.version"
# The group configs a share-partition applies, in the native core's row order.
OWN = LOCK, DELIVERY_LIMIT, RECORD_LOCKS, AUTO_RESET, ISOLATION, RENEW = (
    "share.record.lock.duration.ms",
    "share.delivery.count.limit",
    "share.partition.max.record.locks",
    "share.auto.offset.reset",
    "share.isolation.level",
    "share.renew.acknowledge.enable",
)
# (lock ms, delivery count limit, max record locks, auto reset code, read committed, renew)
Row = tuple[int, int, int, int, bool, bool]


class ShareSink(Protocol):
    """`ferrolog_native.Server.share_groups`."""

    def configure(
        self,
        enabled: bool,
        max_sessions: int,
        defaults: Row,
        groups: list[tuple[str, Row]],
    ) -> None: ...


def settings_row(configs: Mapping[str, str]) -> Row:
    return (
        int(configs[LOCK]),
        int(configs[DELIVERY_LIMIT]),
        int(configs[RECORD_LOCKS]),
        auto_reset_code(configs[AUTO_RESET]),
        configs[ISOLATION] == "read_committed",
        configs[RENEW] == "true",
    )


class ShareSettings:
    """Listens to the finalized features and the group configs; pushes the resolved settings."""

    def __init__(self, native: ShareSink, config: BrokerConfig) -> None:
        self._native = native
        self._config = config
        self._enabled = False
        self._groups: GroupConfigs = {}

    def features_changed(self, finalized: FinalizedFeatures) -> None:
        self._enabled = finalized.levels.get(SHARE_VERSION, 0) >= 1
        self._push()

    def group_configs_changed(self, configs: GroupConfigs) -> None:
        self._groups = configs
        self._push()

    def _push(self) -> None:
        defaults = group_defaults(self._config)
        groups = [
            (group, settings_row(defaults | dict(configs)))
            for group, configs in sorted(self._groups.items())
            if any(name in configs for name in OWN)
        ]
        self._native.configure(
            self._enabled,
            self._config.get_int("group.share.max.share.sessions"),
            settings_row(defaults),
            groups,
        )

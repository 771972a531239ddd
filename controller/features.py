"""The controller's decision on an UpdateFeatures request (KIP-584), as Kafka 4.1's controller
decides it (`FeatureControlManager.updateFeature`), against the levels this broker supports
(`ferrolog.features.SUPPORTED_FEATURES`): `updated_levels` decides, pure (state in, new levels
or Kafka's error out), and `FeatureControlManager` keeps the finalized levels and writes them.

Kafka 4.1's rules and messages (each checked against a Kafka 4.1.1 broker):
- upgrade types other than UPGRADE (1), SAFE_DOWNGRADE (2) and UNSAFE_DOWNGRADE (3) are refused;
- a level below 0, or outside the supported range, is refused ("Local controller <id> only
  supports versions 0-1", or "... does not support this feature." when the maximum is 0);
- level 0 of a feature that has no entry at all: "Feature <name> not found.";
- a lower level needs a downgrade type, a higher one UPGRADE; the same level is accepted (and
  written again: the epoch moves, as in Kafka 4.1);
- level 0 removes the feature from the finalized ones, safe or unsafe: ferrolog's features keep
  no metadata that a downgrade would lose.
One refused update fails the whole request (INVALID_UPDATE_VERSION, "The update failed for all
features since the following feature had an error: ..."); validate-only writes nothing.

Every broker of a cluster runs the same ferrolog, so the controller's own table stands for all
of them (Kafka also checks each registered broker's range).
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ferrolog.errors import FeatureUpdateFailedError, InvalidUpdateVersionError
from ferrolog.features import supported

from .store.base import BadVersionError, FinalizedFeatures, MetadataStore

log = logging.getLogger(__name__)

# An UpdateFeatures that keeps losing the compare-and-set of the finalized features (to
# another controller's writes) gives up after this many tries.
FEATURE_WRITE_TRIES = 5


class UpgradeType(enum.IntEnum):
    """Kafka's `FeatureUpdate.UpgradeType` (UpdateFeatures v1+ `upgrade_type`)."""

    UNKNOWN = 0
    UPGRADE = 1
    SAFE_DOWNGRADE = 2
    UNSAFE_DOWNGRADE = 3


@dataclass(frozen=True)
class FeatureUpdate:
    level: int
    upgrade_type: int = UpgradeType.UPGRADE


def reason_refused(
    name: str,
    update: FeatureUpdate,
    current: int,
    controller_id: int,
    table: Mapping[str, tuple[int, int]] | None = None,
) -> str | None:
    """Why the controller refuses to take `name` from level `current` (0: not finalized) to
    `update.level`, in Kafka's words; None when it may. `table`: the supported levels (the
    stable ones by default)."""
    table = supported() if table is None else table
    level = update.level
    if update.upgrade_type not in (
        UpgradeType.UPGRADE,
        UpgradeType.SAFE_DOWNGRADE,
        UpgradeType.UNSAFE_DOWNGRADE,
    ):
        return "The controller does not support the given upgrade type."
    if level < 0:
        return "A feature version cannot be less than 0."
    low, high = table.get(name, (0, 0))
    if not low <= level <= high:
        if high == 0:
            return f"Local controller {controller_id} does not support this feature."
        return f"Local controller {controller_id} only supports versions {low}-{high}"
    if name not in table:
        return f"Feature {name} not found."
    if level < current and update.upgrade_type == UpgradeType.UPGRADE:
        return (
            "Can't downgrade the version of this feature without setting the upgrade type to "
            "either safe or unsafe downgrade."
        )
    if level > current and update.upgrade_type != UpgradeType.UPGRADE:
        return "Can't downgrade to a newer version."
    return None


def updated_levels(
    finalized: Mapping[str, int],
    updates: Mapping[str, FeatureUpdate],
    controller_id: int,
    unstable: bool = False,
) -> dict[str, int]:
    """The finalized levels once `updates` are applied; raises InvalidUpdateVersionError for
    the first refused update (by feature name, as Kafka orders them). `unstable`: the
    controller's `unstable.feature.versions.enable`."""
    levels = dict(finalized)
    table = supported(unstable)
    for name, update in sorted(updates.items()):
        reason = reason_refused(name, update, finalized.get(name, 0), controller_id, table)
        if reason is not None:
            raise InvalidUpdateVersionError(
                "The update failed for all features since the following feature had an error: "
                f"Invalid update version {update.level} for feature {name}. {reason}"
            )
        if update.level > 0:
            levels[name] = update.level
        else:
            levels.pop(name, None)
    return levels


class FeatureControlManager:
    """The finalized features this broker goes by (loaded at start; in a cluster, each view
    read sets them), and the controller's UpdateFeatures: decided by `updated_levels` on the
    levels in the store, then written unless validate-only."""

    def __init__(self, store: MetadataStore, node_id: int, unstable: bool = False) -> None:
        self._store = store
        self._node_id = node_id
        self._unstable = unstable
        self._finalized = FinalizedFeatures()
        self._listeners: list[Callable[[FinalizedFeatures], None]] = []
        # One UpdateFeatures at a time: each decides on the levels the previous one wrote.
        self._lock = asyncio.Lock()

    @property
    def finalized(self) -> FinalizedFeatures:
        return self._finalized

    @finalized.setter
    def finalized(self, features: FinalizedFeatures) -> None:
        changed = features.levels != self._finalized.levels
        self._finalized = features
        if changed:
            for listener in self._listeners:
                listener(features)

    def subscribe(self, listener: Callable[[FinalizedFeatures], None]) -> None:
        """Calls `listener` with the finalized features now and whenever their levels
        change."""
        self._listeners.append(listener)
        listener(self._finalized)

    async def load(self) -> None:
        self.finalized = await self._store.finalized_features()

    async def update(self, updates: Mapping[str, FeatureUpdate], validate_only: bool) -> None:
        """Raises InvalidUpdateVersionError (refused) or FeatureUpdateFailedError."""
        async with self._lock:
            for _ in range(FEATURE_WRITE_TRIES):
                current = self.finalized
                levels = updated_levels(current.levels, updates, self._node_id, self._unstable)
                if validate_only or not updates:
                    return
                try:
                    self.finalized = await self._store.update_finalized_features(
                        levels, current.epoch
                    )
                except BadVersionError:
                    # Written meanwhile (by an earlier controller): decide again on that.
                    self.finalized = await self._store.finalized_features()
                    continue
                log.info(
                    "finalized features %s epoch=%d",
                    dict(self.finalized.levels) or "none",
                    self.finalized.epoch,
                )
                return
            raise FeatureUpdateFailedError("the finalized features kept changing; try again")

"""The transaction coordinator: the transactional ids of each `__transaction_state` partition
this broker leads, as shards on the coordinator runtime, their state changes, the markers, and
the timers.

A transactional id lives on partition `partition_for(transactional_id)` of
`__transaction_state`; the broker leading that partition is its coordinator, and the
partition's leader epoch is the coordinator epoch that its markers carry (a partition refuses
markers of an older coordinator). The runtime hears from the controller which partitions this
broker leads and loads each by replaying it (`TxnShard.replay_batch`); every transaction it
finds prepared (PrepareCommit or PrepareAbort: the previous
coordinator died before all markers were written) is finished: its markers are written again
(markers are idempotent for the partitions that have them) and its completion recorded.

A state change is decided by `operations` (which marks the id pending), appended (acks=all)
and only then applied; clients are answered after that. EndTxn is answered once the prepared
state is durable; the markers follow, then the CompleteCommit/CompleteAbort record."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ferrolog import errors
from ferrolog.clock import now_ms
from ferrolog.controller.cluster.topics import TRANSACTION_STATE
from ferrolog.controller.coordinator.partitioning import partition_for
from ferrolog.controller.coordinator.runtime import CoordinatorRuntime
from ferrolog.controller.coordinator.txn import operations, records
from ferrolog.controller.coordinator.txn.forward import CoordinatorForwarder
from ferrolog.controller.coordinator.txn.markers import Marker, MarkerSender
from ferrolog.controller.coordinator.txn.operations import Expected, FenceThenAbort, NeedProducerId
from ferrolog.controller.coordinator.txn.shard import TxnShard
from ferrolog.controller.coordinator.txn.state import (
    EXPIRABLE,
    PREPARED,
    TV2,
    TopicPartition,
    Transit,
    TxnMetadata,
    TxnState,
)

if TYPE_CHECKING:
    import ferrolog_native
    from ferrolog.config import BrokerConfig
    from ferrolog.controller.native_waits import NativeWaits

log = logging.getLogger(__name__)

D = TypeVar("D")

TICK_SECONDS = 0.5
COMPLETE_RETRY_S = 0.2

# Kafka's translation of a failed append for a transactional client.
_APPEND_ERRORS = {
    errors.UnknownTopicOrPartitionError.code: errors.CoordinatorNotAvailableError.code,
    errors.NotEnoughReplicasError.code: errors.CoordinatorNotAvailableError.code,
    errors.NotEnoughReplicasAfterAppendError.code: errors.CoordinatorNotAvailableError.code,
    errors.RequestTimedOutError.code: errors.CoordinatorNotAvailableError.code,
    errors.NotLeaderOrFollowerError.code: errors.NotCoordinatorError.code,
    errors.KafkaStorageError.code: errors.NotCoordinatorError.code,
    errors.MessageTooLargeError.code: errors.UnknownServerError.code,
    errors.RecordListTooLargeError.code: errors.UnknownServerError.code,
}


@dataclass(frozen=True)
class TxnSettings:
    max_timeout_ms: int
    id_expiration_ms: int
    abort_interval_ms: int
    expire_interval_ms: int

    @classmethod
    def from_config(cls, config: BrokerConfig) -> TxnSettings:
        return cls(
            max_timeout_ms=config.get_int("transaction.max.timeout.ms"),
            id_expiration_ms=config.get_int("transactional.id.expiration.ms"),
            abort_interval_ms=config.get_int(
                "transaction.abort.timed.out.transaction.cleanup.interval.ms"
            ),
            expire_interval_ms=config.get_int(
                "transaction.remove.expired.transaction.cleanup.interval.ms"
            ),
        )


class TransactionCoordinator:
    def __init__(
        self,
        native: ferrolog_native.Server,
        waits: NativeWaits,
        config: BrokerConfig,
        allocate_producer_id: Callable[[], Awaitable[int]],
        markers: MarkerSender,
        forward: CoordinatorForwarder | None = None,
    ) -> None:
        self.settings = TxnSettings.from_config(config)
        self._allocate = allocate_producer_id
        self._markers = markers
        self._forward = forward
        self._last_abort = 0
        self._last_expiry = 0
        # The controller's leadership listener for `__transaction_state`.
        self.runtime: CoordinatorRuntime[TxnShard] = CoordinatorRuntime(
            native,
            waits,
            TRANSACTION_STATE,
            config.get_int("transaction.state.log.num.partitions"),
            TxnShard,
            tick_seconds=TICK_SECONDS,
            tick=self.tick,
            on_loaded=self._loaded,
        )

    # Lifecycle

    def start(self) -> None:
        self.runtime.start()

    async def stop(self) -> None:
        await self.runtime.stop()
        await self._markers.close()

    # Lookups

    def partition_of(self, transactional_id: str) -> int:
        partition: int = partition_for(transactional_id, self.runtime.partition_count)
        return partition

    def _state(self, transactional_id: str) -> tuple[TxnShard, TxnMetadata | None]:
        """The id's shard and metadata; raises NotCoordinatorError or
        CoordinatorLoadInProgressError."""
        shard = self.runtime.shard(self.partition_of(transactional_id))
        return shard, shard.txns.get(transactional_id)

    def describe(self, transactional_id: str) -> TxnMetadata | None:
        """The id's metadata (None: unknown); raises NotCoordinatorError or
        CoordinatorLoadInProgressError."""
        _, meta = self._state(transactional_id)
        return meta

    def loading(self) -> bool:
        return self.runtime.loading()

    def transactions(self) -> Iterable[TxnMetadata]:
        """Every transactional id of the loaded partitions."""
        for shard in self.runtime.shards():
            yield from shard.txns.values()

    # Requests

    async def init_producer_id(
        self, transactional_id: str, timeout_ms: int, producer_id: int, epoch: int
    ) -> tuple[int, int, int]:
        """InitProducerId: (error code, producer id, epoch)."""
        if not operations.valid_timeout(timeout_ms, self.settings.max_timeout_ms):
            return errors.InvalidTransactionTimeoutError.code, -1, -1
        expected = Expected(producer_id, epoch) if producer_id >= 0 or epoch >= 0 else None
        try:
            shard, meta = self._state(transactional_id)
            if meta is None:
                fresh = await self._allocate()
                shard, meta = self._state(transactional_id)
                if meta is None:
                    meta = TxnMetadata.new(transactional_id, fresh, timeout_ms, now_ms())
                    shard.txns[transactional_id] = meta
            current = meta

            def decide(new_id: int | None) -> operations.InitDecision:
                return operations.decide_init(current, timeout_ms, expected, now_ms(), new_id)

            decision = await self._with_new_id(transactional_id, meta, decide)
        except errors.KafkaError as exc:
            return exc.code, -1, -1
        assert not isinstance(decision, NeedProducerId)
        if isinstance(decision, int):
            return decision, -1, -1
        if isinstance(decision, FenceThenAbort):
            fence = decision.transit
            code = await self._end(
                shard, meta, fence.producer_id, fence.producer_epoch, False, from_client=False
            )
            return code or errors.ConcurrentTransactionsError.code, -1, -1
        code = await self._append(shard, transactional_id, decision)
        if code:
            return code, -1, -1
        log.info(
            "initialized transactional id %s producer_id=%d epoch=%d",
            transactional_id, decision.producer_id, decision.producer_epoch,
        )  # fmt: skip
        return 0, decision.producer_id, decision.producer_epoch

    async def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: Iterable[TopicPartition],
        client_version: int = 0,
    ) -> int:
        """AddPartitionsToTxn and AddOffsetsToTxn: an error code, 0 once they are in the
        transaction. `client_version` 2: a broker adds them for a producer of transaction
        version 2."""
        try:
            shard, meta = self._state(transactional_id)
        except errors.KafkaError as exc:
            return exc.code
        decision = operations.decide_add_partitions(
            meta, producer_id, epoch, partitions, now_ms(), client_version
        )
        if isinstance(decision, int):
            return decision
        return await self._append(shard, transactional_id, decision)

    def verify_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: list[TopicPartition],
    ) -> dict[TopicPartition, int]:
        """AddPartitionsToTxn's verify-only mode (KIP-890): each partition's error code."""
        try:
            _, meta = self._state(transactional_id)
        except errors.KafkaError as exc:
            return dict.fromkeys(partitions, exc.code)
        codes: dict[TopicPartition, int] = operations.verify_partitions(
            meta, producer_id, epoch, partitions
        )
        return codes

    async def verify(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: list[TopicPartition],
        forward: bool,
    ) -> dict[TopicPartition, int]:
        """`verify_partitions`, or with `forward` (this broker's own native core asking) the
        answer of the broker that coordinates the id when that is not this one."""
        if forward:
            asked = await self._ask_coordinator(
                transactional_id, producer_id, epoch, partitions, verify_only=True
            )
            if asked is not None:
                return asked
        return self.verify_partitions(transactional_id, producer_id, epoch, partitions)

    async def add_for_producer(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: list[TopicPartition],
        forward: bool,
    ) -> dict[TopicPartition, int]:
        """AddPartitionsToTxn v4+ without VerifyOnly: a partition leader adds partitions to
        the transaction of a producer of transaction version 2 (Produce v12+, TxnOffsetCommit
        v5+), which starts one if none is ongoing. With `forward` (this broker's own native
        core asking), the answer of the broker that coordinates the id when that is not this
        one."""
        if forward:
            asked = await self._ask_coordinator(
                transactional_id, producer_id, epoch, partitions, verify_only=False
            )
            if asked is not None:
                return asked
        code = await self.add_partitions(transactional_id, producer_id, epoch, partitions, TV2)
        return dict.fromkeys(partitions, code)

    async def _ask_coordinator(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: list[TopicPartition],
        verify_only: bool,
    ) -> dict[TopicPartition, int] | None:
        """The answer of the broker that coordinates the id, when that is not this one (None:
        this broker answers)."""
        partition = self.partition_of(transactional_id)
        if self._forward is None or self.runtime.owned_shard(partition) is not None:
            return None
        codes: dict[TopicPartition, int] = await self._forward.ask(
            partition, transactional_id, producer_id, epoch, partitions, verify_only
        )
        return codes

    async def end_txn(
        self, transactional_id: str, producer_id: int, epoch: int, commit: bool
    ) -> int:
        """EndTxn v0-4: 0 once the outcome is durable (its markers follow)."""
        try:
            shard, meta = self._state(transactional_id)
        except errors.KafkaError as exc:
            return exc.code
        return await self._end(shard, meta, producer_id, epoch, commit, from_client=True)

    async def end_txn_v2(
        self, transactional_id: str, producer_id: int, epoch: int, commit: bool
    ) -> tuple[int, int, int]:
        """EndTxn v5 (transaction version 2): (error code, producer id, epoch), the id and
        epoch the producer goes on with once the outcome is durable (the markers follow,
        with the new epoch); a retry of a completed end gets what the end got."""
        try:
            shard, meta = self._state(transactional_id)

            def decide(new_id: int | None) -> int | Transit | NeedProducerId:
                return operations.decide_end_v2(meta, producer_id, epoch, commit, now_ms(), new_id)

            ended = await self._with_new_id(transactional_id, meta, decide)
        except errors.KafkaError as exc:
            return exc.code, -1, -1
        assert not isinstance(ended, NeedProducerId)
        if isinstance(ended, int):
            if ended or meta is None:
                return ended, -1, -1
            return 0, meta.producer_id, meta.producer_epoch
        assert meta is not None
        code = await self._append(shard, transactional_id, ended)
        if code:
            return code, -1, -1
        if self.runtime.is_current(shard) and meta.state == ended.state:
            self.runtime.spawn(self._complete(shard, meta))
        log.debug("%s %s at epoch %d", transactional_id, ended.state.label, ended.producer_epoch)
        return 0, *ended.answer()

    async def _end(
        self,
        shard: TxnShard,
        meta: TxnMetadata | None,
        producer_id: int,
        epoch: int,
        commit: bool,
        from_client: bool,
    ) -> int:
        decision = operations.decide_end(meta, producer_id, epoch, commit, from_client, now_ms())
        if isinstance(decision, int):
            return decision
        assert meta is not None
        fence = not from_client
        code = await self._append(shard, meta.transactional_id, decision)
        if code:
            if fence:
                meta.failed_epoch_fence = True
            return code
        if self.runtime.is_current(shard) and meta.state == decision.state:
            self.runtime.spawn(self._complete(shard, meta))
        return 0

    async def _with_new_id(
        self,
        transactional_id: str,
        meta: TxnMetadata | None,
        decide: Callable[[int | None], D],
    ) -> D | int:
        """`decide(None)`, or when it needs a new producer id (an exhausted epoch rotates),
        `decide` again with one allocated: never NeedProducerId. CONCURRENT_TRANSACTIONS if
        the id's metadata was replaced while the id was allocated."""
        new_id: int | None = None
        while True:
            decision = decide(new_id)
            if not isinstance(decision, NeedProducerId):
                return decision
            new_id = await self._allocate()
            _, found = self._state(transactional_id)
            if found is not meta:
                return errors.ConcurrentTransactionsError.code

    # Finishing prepared transactions

    async def _complete(self, shard: TxnShard, meta: TxnMetadata) -> None:
        """Writes the markers of a prepared transaction, then records its completion."""
        marker = Marker(
            meta.producer_id,
            meta.producer_epoch,
            shard.epoch,
            meta.state == TxnState.PREPARE_COMMIT,
            tuple(sorted(meta.partitions)),
            meta.client_version,
        )
        started = time.monotonic()
        if not await self._markers.write(marker, lambda: self.runtime.is_current(shard)):
            log.info("gave up the markers of %s", meta.transactional_id)
            return
        while self.runtime.is_current(shard) and meta.state in PREPARED:
            if meta.pending is not None:
                await asyncio.sleep(COMPLETE_RETRY_S)
                continue
            code = await self._append(shard, meta.transactional_id, meta.prepare_complete(now_ms()))
            if code == 0:
                break
            if code == errors.NotCoordinatorError.code:
                return
            log.warning("recording the completion of %s failed: %d", meta.transactional_id, code)
            await asyncio.sleep(COMPLETE_RETRY_S)
        log.debug(
            "completed %s in %.3fs partitions=%d",
            meta.transactional_id, time.monotonic() - started, len(marker.partitions),
        )  # fmt: skip

    # Appends

    async def _append(self, shard: TxnShard, transactional_id: str, transit: Transit) -> int:
        """Writes `transit` (prepared on the id's metadata) and applies it once durable; the
        error code for the client otherwise, the pending mark cleared."""
        value = None if transit.state == TxnState.DEAD else records.encode_value(transit)
        code = await self.runtime.append(shard, [(records.encode_key(transactional_id), value)])
        meta = shard.txns.get(transactional_id)
        if not self.runtime.is_current(shard):
            return errors.NotCoordinatorError.code
        if meta is None:
            return errors.NotCoordinatorError.code
        if code:
            meta.abort_pending()
            error: int = _APPEND_ERRORS.get(code, code)
            return error
        if transit.state == TxnState.DEAD:
            del shard.txns[transactional_id]
        else:
            meta.complete(transit)
        return 0

    # Loading

    def _loaded(self, shard: TxnShard) -> None:
        """Every transaction the partition's log left prepared is finished."""
        prepared = [m for m in shard.txns.values() if m.state in PREPARED]
        for meta in prepared:
            self.runtime.spawn(self._complete(shard, meta))
        if prepared:
            # The runtime logs the load itself; this says what it left to finish.
            log.info(
                "finishing %d prepared transactions of %s-%d (transactional_ids=%d)",
                len(prepared), TRANSACTION_STATE, shard.partition, len(shard.txns),
            )  # fmt: skip

    # Timers

    def tick(self, now: int) -> None:
        """Aborts transactions past their timeout and expires idle transactional ids, each
        at its configured interval."""
        if now - self._last_abort >= self.settings.abort_interval_ms:
            self._last_abort = now
            self._abort_timed_out(now)
        if now - self._last_expiry >= self.settings.expire_interval_ms:
            self._last_expiry = now
            self._expire_ids(now)

    def _abort_timed_out(self, now: int) -> None:
        for shard in self.runtime.shards():
            for meta in list(shard.txns.values()):
                if not operations.timed_out(meta, now):
                    continue
                log.info(
                    "aborting %s: its transaction outlived %d ms",
                    meta.transactional_id, meta.timeout_ms,
                )  # fmt: skip
                fence = meta.prepare_fence_epoch()
                self.runtime.spawn(
                    self._end(shard, meta, fence.producer_id, fence.producer_epoch, False, False)
                )

    def _expire_ids(self, now: int) -> None:
        horizon = now - self.settings.id_expiration_ms
        for shard in self.runtime.shards():
            for meta in list(shard.txns.values()):
                if meta.state in EXPIRABLE and meta.pending is None and meta.update_ms <= horizon:
                    log.info("expiring transactional id %s", meta.transactional_id)
                    self.runtime.spawn(
                        self._append(shard, meta.transactional_id, meta.prepare_dead())
                    )

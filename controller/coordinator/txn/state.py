"""A transactional id's state and Kafka's transitions between its states (Kafka's
`TransactionMetadata`): pure, no I/O.

A change is prepared (`prepare_*` returns the `Transit` to write, and marks the metadata
pending so no second change starts), appended to `__transaction_state`, and only then
completed (`complete`): the in-memory state never runs ahead of the log, so a coordinator
that takes over by replaying the log sees what clients were told. A failed append clears the
pending mark (`abort_pending`).

Transaction version 2 (KIP-890 part 2, EndTxn v5): every end bumps the epoch as it prepares,
so the markers and the producer's next transaction carry the new one; an exhausted epoch
rotates to the next producer id when the end completes."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
# Kafka never hands out the last epoch (Short.MaxValue) so that it can always fence.
EPOCH_EXHAUSTED = 2**15 - 2
MAX_EPOCH = 2**15 - 1
# The transaction version of a transaction ended by EndTxn v5 or added to by a broker
# (ClientTransactionVersion); 0 for the others.
TV2 = 2

TopicPartition = tuple[str, int]


class TxnState(enum.IntEnum):
    """TransactionLogValue's TransactionStatus codes."""

    EMPTY = 0
    ONGOING = 1
    PREPARE_COMMIT = 2
    PREPARE_ABORT = 3
    COMPLETE_COMMIT = 4
    COMPLETE_ABORT = 5
    DEAD = 6
    PREPARE_EPOCH_FENCE = 7

    @property
    def label(self) -> str:
        """The name DescribeTransactions and ListTransactions report ("PrepareCommit")."""
        return _LABELS[self]

    @classmethod
    def from_label(cls, label: str) -> TxnState | None:
        return _BY_LABEL.get(label)


_LABELS = {
    TxnState.EMPTY: "Empty",
    TxnState.ONGOING: "Ongoing",
    TxnState.PREPARE_COMMIT: "PrepareCommit",
    TxnState.PREPARE_ABORT: "PrepareAbort",
    TxnState.COMPLETE_COMMIT: "CompleteCommit",
    TxnState.COMPLETE_ABORT: "CompleteAbort",
    TxnState.DEAD: "Dead",
    TxnState.PREPARE_EPOCH_FENCE: "PrepareEpochFence",
}
_BY_LABEL = {label: state for state, label in _LABELS.items()}

S = TxnState
VALID_PREVIOUS: dict[TxnState, frozenset[TxnState]] = {
    S.EMPTY: frozenset({S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}),
    S.ONGOING: frozenset({S.ONGOING, S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}),
    S.PREPARE_COMMIT: frozenset({S.ONGOING}),
    # From Empty and Complete*: transaction version 2's abort of a transaction with nothing in it.
    S.PREPARE_ABORT: frozenset(
        {S.ONGOING, S.PREPARE_EPOCH_FENCE, S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}
    ),
    S.COMPLETE_COMMIT: frozenset({S.PREPARE_COMMIT}),
    S.COMPLETE_ABORT: frozenset({S.PREPARE_ABORT}),
    S.DEAD: frozenset({S.EMPTY, S.COMPLETE_ABORT, S.COMPLETE_COMMIT}),
    S.PREPARE_EPOCH_FENCE: frozenset({S.ONGOING}),
}
# States in which a transactional id may expire (nothing is in flight).
EXPIRABLE = frozenset({S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT})
# States whose markers are still to be written.
PREPARED = frozenset({S.PREPARE_COMMIT, S.PREPARE_ABORT})


class IllegalTransition(RuntimeError):
    """A transition Kafka's state machine does not allow: a bug, never a client's doing."""


def epoch_exhausted(epoch: int) -> bool:
    return epoch >= EPOCH_EXHAUSTED


@dataclass(frozen=True)
class Transit:
    """The state a prepared change leads to: what is written to `__transaction_state`."""

    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    timeout_ms: int
    state: TxnState
    partitions: frozenset[TopicPartition]
    start_ms: int
    update_ms: int
    # Transaction version 2: the producer id a prepared end with an exhausted epoch moves
    # to when it completes, and the transaction's version.
    next_producer_id: int = NO_PRODUCER_ID
    client_version: int = 0

    def answer(self) -> tuple[int, int]:
        """(producer id, epoch) an EndTxn v5 that prepared this is answered with: those of
        the completed transaction, a rotated id at epoch 0."""
        if self.next_producer_id != NO_PRODUCER_ID:
            return self.next_producer_id, 0
        return self.producer_id, self.producer_epoch


@dataclass
class TxnMetadata:
    transactional_id: str
    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    timeout_ms: int
    state: TxnState
    partitions: set[TopicPartition] = field(default_factory=set)
    # When the first partition was added (-1: no transaction started).
    start_ms: int = -1
    update_ms: int = -1
    # The state a prepared change is taking the id to, until it is written (or fails).
    pending: TxnState | None = None
    # An epoch fence whose append failed: the bumped epoch may be in the log already, so the
    # next fence does not bump again (it was never returned to a client either way).
    failed_epoch_fence: bool = False
    next_producer_id: int = NO_PRODUCER_ID
    client_version: int = 0

    @classmethod
    def new(cls, transactional_id: str, producer_id: int, timeout_ms: int, now: int) -> TxnMetadata:
        return cls(
            transactional_id,
            producer_id,
            NO_PRODUCER_ID,
            NO_PRODUCER_EPOCH,
            NO_PRODUCER_EPOCH,
            timeout_ms,
            TxnState.EMPTY,
            update_ms=now,
        )

    @classmethod
    def from_transit(cls, transactional_id: str, t: Transit) -> TxnMetadata:
        """The metadata a loaded record describes."""
        return cls(
            transactional_id,
            t.producer_id,
            t.last_producer_id,
            t.producer_epoch,
            t.last_producer_epoch,
            t.timeout_ms,
            t.state,
            set(t.partitions),
            t.start_ms,
            t.update_ms,
            next_producer_id=t.next_producer_id,
            client_version=t.client_version,
        )

    @property
    def epoch_exhausted(self) -> bool:
        return epoch_exhausted(self.producer_epoch)

    def current(self) -> Transit:
        """The state as it is, as a record (no transition)."""
        return Transit(
            self.producer_id,
            self.last_producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.timeout_ms,
            self.state,
            frozenset(self.partitions),
            self.start_ms,
            self.update_ms,
            self.next_producer_id,
            self.client_version,
        )

    # Preparing transitions

    def _prepare(self, transit: Transit) -> Transit:
        if self.pending is not None:
            raise IllegalTransition(
                f"{self.transactional_id}: to {transit.state.label} while {self.pending.label} "
                "is pending"
            )
        if transit.state not in (TxnState.DEAD,) and transit.producer_epoch < 0:
            raise IllegalTransition(f"{self.transactional_id}: epoch {transit.producer_epoch}")
        if self.state not in VALID_PREVIOUS[transit.state]:
            raise IllegalTransition(
                f"{self.transactional_id}: {self.state.label} -> {transit.state.label}"
            )
        self.pending = transit.state
        return transit

    def prepare_increment_epoch(
        self, timeout_ms: int, expected_epoch: int | None, now: int
    ) -> Transit | None:
        """InitProducerId on an id with no transaction in flight: the next epoch. With the
        epoch the producer had (KIP-360), a retry of a bump that succeeded gets the same
        epoch again; None means the producer is fenced (PRODUCER_FENCED)."""
        if self.epoch_exhausted:
            raise IllegalTransition(f"{self.transactional_id}: epochs exhausted")
        bumped = self.producer_epoch + 1
        if expected_epoch is None:
            epoch, last = bumped, NO_PRODUCER_EPOCH
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_epoch == self.producer_epoch:
            epoch, last = bumped, self.producer_epoch
        elif expected_epoch == self.last_producer_epoch:
            epoch, last = self.producer_epoch, self.last_producer_epoch
        else:
            return None
        return self._prepare(
            Transit(
                self.producer_id, self.producer_id, epoch, last, timeout_ms, TxnState.EMPTY,
                frozenset(), -1, now,
            )
        )  # fmt: skip

    def prepare_producer_id_rotation(
        self, new_producer_id: int, timeout_ms: int, now: int, record_last_epoch: bool
    ) -> Transit:
        """InitProducerId when the epoch is exhausted: a new producer id at epoch 0."""
        if self.state in (TxnState.ONGOING, *PREPARED):
            raise IllegalTransition(f"{self.transactional_id}: rotation during a transaction")
        last = self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH
        return self._prepare(
            Transit(
                new_producer_id, self.producer_id, 0, last, timeout_ms, TxnState.EMPTY,
                frozenset(), -1, now,
            )
        )  # fmt: skip

    def prepare_fence_epoch(self) -> Transit:
        """InitProducerId (or the timeout) while a transaction is ongoing: the epoch goes up
        so the old producer is fenced, and the transaction is then aborted with it."""
        bumped = self.producer_epoch if self.failed_epoch_fence else self.producer_epoch + 1
        return self._prepare(
            replace(
                self.current(),
                producer_epoch=bumped,
                last_producer_epoch=NO_PRODUCER_EPOCH,
                state=TxnState.PREPARE_EPOCH_FENCE,
            )
        )

    def prepare_add_partitions(
        self, added: set[TopicPartition], now: int, client_version: int = 0
    ) -> Transit:
        """`client_version` TV2: a partition leader adds the partition for the producer
        (Produce v12+, TxnOffsetCommit v5+), which starts the transaction if none is."""
        start = now if self.state in EXPIRABLE else self.start_ms
        return self._prepare(
            replace(
                self.current(),
                state=TxnState.ONGOING,
                partitions=frozenset(self.partitions | added),
                start_ms=start,
                update_ms=now,
                client_version=max(client_version, self.client_version)
                if self.state == TxnState.ONGOING
                else client_version,
            )
        )

    def prepare_end(self, commit: bool, now: int) -> Transit:
        state = TxnState.PREPARE_COMMIT if commit else TxnState.PREPARE_ABORT
        return self._prepare(replace(self.current(), state=state, update_ms=now))

    def prepare_end_v2(self, commit: bool, now: int, next_producer_id: int) -> Transit:
        """EndTxn v5: the epoch goes up by one as the end is prepared (not past the last
        epoch, which only an abort can meet); an abort with nothing ongoing (Empty,
        Complete*) is an empty one, which starts now and has no partitions."""
        state = TxnState.PREPARE_COMMIT if commit else TxnState.PREPARE_ABORT
        empty = self.state != TxnState.ONGOING
        epoch = self.producer_epoch if self.producer_epoch >= MAX_EPOCH else self.producer_epoch + 1
        return self._prepare(
            replace(
                self.current(),
                state=state,
                producer_epoch=epoch,
                last_producer_id=self.producer_id,
                last_producer_epoch=self.producer_epoch,
                partitions=frozenset() if empty else frozenset(self.partitions),
                start_ms=now if empty else self.start_ms,
                update_ms=now,
                next_producer_id=next_producer_id,
                client_version=TV2,
            )
        )

    def prepare_complete(self, now: int) -> Transit:
        """The markers are written: Complete*, on the next producer id at epoch 0 when the
        prepared end rotated to one."""
        state = (
            TxnState.COMPLETE_COMMIT
            if self.state == TxnState.PREPARE_COMMIT
            else TxnState.COMPLETE_ABORT
        )
        self.failed_epoch_fence = False
        rotated = self.next_producer_id != NO_PRODUCER_ID
        return self._prepare(
            replace(
                self.current(),
                state=state,
                partitions=frozenset(),
                update_ms=now,
                producer_id=self.next_producer_id if rotated else self.producer_id,
                producer_epoch=0 if rotated else self.producer_epoch,
                last_producer_id=self.producer_id if rotated else self.last_producer_id,
                last_producer_epoch=NO_PRODUCER_EPOCH if rotated else self.last_producer_epoch,
                next_producer_id=NO_PRODUCER_ID,
            )
        )

    def prepare_dead(self) -> Transit:
        return self._prepare(replace(self.current(), state=TxnState.DEAD, partitions=frozenset()))

    def take_fence_for_abort(self, epoch: int) -> None:
        """The abort that follows an epoch fence: the pending fence makes way for it, with
        the bumped epoch (Kafka's `endTransaction` from the coordinator itself)."""
        self.pending = None
        self.producer_epoch = epoch
        self.last_producer_epoch = NO_PRODUCER_EPOCH

    # Completing

    def abort_pending(self) -> None:
        self.pending = None

    def complete(self, t: Transit) -> None:
        """The prepared `t` is in the log: the metadata becomes it."""
        if self.pending != t.state:
            raise IllegalTransition(
                f"{self.transactional_id}: completing {t.state.label}, pending "
                f"{self.pending.label if self.pending is not None else None}"
            )
        if t.state in (TxnState.DEAD, TxnState.PREPARE_EPOCH_FENCE):
            raise IllegalTransition(f"{self.transactional_id}: cannot complete {t.state.label}")
        self.producer_id = t.producer_id
        self.last_producer_id = t.last_producer_id
        self.producer_epoch = t.producer_epoch
        self.last_producer_epoch = t.last_producer_epoch
        self.timeout_ms = t.timeout_ms
        self.partitions = set(t.partitions)
        self.start_ms = t.start_ms
        self.update_ms = t.update_ms
        self.next_producer_id = t.next_producer_id
        self.client_version = t.client_version
        self.state = t.state
        self.pending = None

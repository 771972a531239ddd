"""The group coordinator (Kafka's classic group protocol and KIP-848 consumer groups), a
replicated state machine over the compacted internal topic `__consumer_offsets`.

- `records`: the topic's record formats (Kafka's OffsetCommit and GroupMetadata key/value
  schemas with their int16 type/version prefixes).
- `state`: groups, members, settings. `shard`: one partition's groups, `replay` (the only way
  committed state changes; `replay_batch` at load) and the outbox of records to append.
- `membership`: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and the timers (`responses`
  builds their answers); `offsets`:
  OffsetCommit/Fetch/Delete, DeleteGroups, offset retention. Both are pure: request and time
  in, replies and records out. `descriptions`: what DescribeGroups, ListGroups and
  ConsumerGroupDescribe tell of a group.
- `coordinator`: the shards on the coordinator runtime (`coordinator.runtime`: leadership,
  loading by replay, batched acks=all appends, the timer), the outbox appended and replayed
  once committed, and the timers of members and offsets.

Transactional offset commits (TxnOffsetCommit) are held pending per producer in the shard
until the transaction's marker reaches the partition (`on_transaction_completed`).

- `consumer`, `consumer_state`, `assignors`: KIP-848 consumer groups (type "consumer":
  ConsumerGroupHeartbeat, ConsumerGroupDescribe, the uniform and range server-side assignors).
  Their membership is in memory only for now (see `consumer_state`); their offsets are
  committed as every group's. KIP-848 records in the topic (Kafka's) are skipped when
  loading."""

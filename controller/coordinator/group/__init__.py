"""The group coordinator (Kafka's classic group protocol and KIP-848 consumer groups), a
replicated state machine over the compacted internal topic `__consumer_offsets`.

- `records`: the topic's record formats (Kafka's OffsetCommit and GroupMetadata key/value
  schemas with their int16 type/version prefixes) and batch building.
- `state`: groups, members, settings. `shard`: one partition's groups, `replay` (the only way
  committed state changes) and the outbox of records to append.
- `membership`: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and the timers (`responses`
  builds their answers); `offsets`:
  OffsetCommit/Fetch/Delete, DeleteGroups, DescribeGroups, ListGroups, offset retention.
  Both are pure: request and time in, replies and records out.
- `coordinator`: the I/O (acks=all appends in a worker thread, batched per partition;
  loading a partition by replaying it; the timer tick) and the leadership hooks
  `on_become_leader` / `on_resign` the controller calls.

Transactional offset commits (TxnOffsetCommit) are held pending per producer in the shard
until the transaction's marker reaches the partition (`on_transaction_completed`).

- `consumer`, `consumer_state`, `assignors`: KIP-848 consumer groups (type "consumer":
  ConsumerGroupHeartbeat, ConsumerGroupDescribe, the uniform and range server-side assignors).
  Their membership is in memory only for now (see `consumer_state`); their offsets are
  committed as every group's. KIP-848 records in the topic (Kafka's) are skipped when
  loading."""

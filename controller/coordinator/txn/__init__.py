"""The transaction coordinator, a replicated state machine over the compacted internal topic
`__transaction_state` (Kafka's `transaction-coordinator` module).

- `state`: a transactional id's metadata, Kafka's states and the transitions between them
  (prepared, appended, then completed).
- `records`: the topic's record format (Kafka's TransactionLogKey/Value).
- `operations`: the decisions of InitProducerId, AddPartitionsToTxn (and its KIP-890 verify-only
  form), AddOffsetsToTxn and EndTxn; pure.
- `markers`: writing COMMIT/ABORT markers to every partition of a transaction, locally or as
  WriteTxnMarkers to the partition's leader.
- `coordinator`: the shards on the coordinator runtime (`coordinator.runtime`: leadership,
  loading by replay, batched appends, the timer), each state change appended then applied,
  finishing prepared transactions, timeouts and id expiration."""

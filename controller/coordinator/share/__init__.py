"""The share coordinator (KIP-932): the state of every share-partition (a share group's view of
one topic partition: its start offset and the delivery state of the records in flight) in
`__share_group_state`, as Kafka's `share-coordinator` module keeps it, on the coordinator
runtime beside the group and transaction coordinators."""

"""The group coordinator (classic protocol): `shard` is the pure state machine of one
`__consumer_offsets` partition, `coordinator` its I/O (appends, loading, timers)."""

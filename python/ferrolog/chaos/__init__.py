"""`ferrolog chaos`: a Jepsen-style checker for Kafka-compatible clusters.

It starts a cluster from a spec (the start command of each broker and of ZooKeeper: ferrolog's
own, or Apache Kafka's), runs a workload of idempotent acks=all producers and a consumer group
(`workload`), injects one fault per cycle (`faults`: processes killed, paused or restarted),
and at the end heals everything and checks the complete history (`checker`): no acknowledged
record lost, none duplicated, offsets monotonic for every consumer, a group that resumes after
a rebalance never re-delivers what it committed, and replicas byte-identical. `run` ties them
together and writes the history and a report."""

"""`ferrolog fuzz`: a structure-aware protocol fuzzer for any Kafka-compatible broker.

It asks the broker which APIs and versions it advertises, builds requests of each from
Kafka's message schemas (`values`: bodies shaped by the schema, with the edge values and
names that reach past a broker's first checks; `batches`: record batches with their CRC
recomputed after a structural change, so validation beyond the CRC is exercised), mutates a
share of the encoded frames byte by byte (`mutate`), and sends them (`campaign`). Between
rounds it checks that the broker still answers and that a canary topic's acknowledged records
are all there, in order; every broken rule is a finding, written with the frame that caused
it so that it can be replayed."""

"""The broker's HTTP listener for operators (`metrics.listener`): Prometheus' `/metrics`, and
`/healthz` and `/readyz` for orchestrators.

`http` serves them; `collector` reads the broker's state when Prometheus scrapes, on the
broker's event loop (the state it reads is only ever changed there), so nothing is counted
per request on the data path. Names follow what Kafka users graph through the JMX exporter
(`kafka_server_replicamanager_underreplicatedpartitions`, ...)."""

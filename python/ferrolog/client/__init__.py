"""ferrolog's own Kafka clients, apart from the broker they talk to: the blocking connection
of the tools and the Spark source (`connection`), the asyncio channel between brokers of the
control plane (`channel`), the security settings both take (`security`: TLS, and SASL by
Kafka's client property names) and the one SASL exchange both run (`sasl`, sans-IO)."""

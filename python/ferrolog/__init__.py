"""ferrolog: a Kafka-compatible message broker with a native (Rust) data path."""

__version__ = "0.1.0"

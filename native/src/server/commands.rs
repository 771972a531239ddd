//! The control plane's partition commands.

/// A failed command: a Kafka error, an I/O error, or a bad config value.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{0}: {1}")]
    Kafka(crate::error::ErrorCode, String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Config(String),
}

#[derive(Debug, Clone)]
pub struct PartitionState {}

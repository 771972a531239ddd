//! Kafka's `LogDirFailureChannel`: the first I/O error (a full disk, a failing one) on any log
//! of a log directory takes the whole directory offline. Its logs refuse appends and reads
//! with KAFKA_STORAGE_ERROR from then on, so nothing half-written is ever acknowledged or
//! served, and nothing is written there again in this process; the broker keeps serving its
//! other directories. As in Kafka, an offline directory comes back only when the broker
//! restarts (recovery then checks every log in it, as after a crash).

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::ErrorCode;

/// The health of one log directory, shared by the manager and every log in the directory.
#[derive(Debug, Default)]
pub struct LogDirFailure {
    offline: AtomicBool,
}

impl LogDirFailure {
    pub fn is_offline(&self) -> bool {
        self.offline.load(Ordering::Acquire)
    }

    /// Takes the directory offline because of `e` (the first cause is logged as an error,
    /// later ones are expected and only logged at debug); returns what the client sees.
    pub fn fail(&self, e: &io::Error, dir: &std::path::Path) -> ErrorCode {
        if self.offline.swap(true, Ordering::AcqRel) {
            ::log::debug!("I/O on offline log directory {} failed: {e}", dir.display());
        } else {
            ::log::error!(
                "log directory {} is offline after an I/O error: {e}. Its partitions are not \
                 served until the broker restarts",
                dir.display()
            );
        }
        ErrorCode::KafkaStorageError
    }
}

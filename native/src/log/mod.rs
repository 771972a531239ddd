//! Partition logs on disk: segments, indexes, recovery, retention, checkpoints.

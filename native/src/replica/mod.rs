//! replica

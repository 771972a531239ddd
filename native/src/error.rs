//! Kafka's error codes: the one table on the Rust side (Kafka's `Errors.java`).
//!
//! The data path answers with these codes. A failed call from Python carries one of them
//! (`CommandError::Kafka`) across the boundary in one place (`py/error.rs`) as
//! `KafkaNativeError(code, message)`, which `ferrolog.errors.from_native` turns into the
//! class of the Python exception tree for that code; a test checks that both tables agree
//! (`error_codes()` in the extension module).

macro_rules! error_codes {
    ($($name:ident = $code:expr),* $(,)?) => {
        /// A Kafka protocol error code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(i16)]
        pub enum ErrorCode {
            $($name = $code),*
        }

        impl ErrorCode {
            /// Every code with its Kafka name, for the cross-language consistency check.
            pub const ALL: &'static [(ErrorCode, &'static str)] = &[$((ErrorCode::$name, stringify!($name))),*];

            pub fn code(self) -> i16 {
                self as i16
            }

            pub fn from_code(code: i16) -> Option<ErrorCode> {
                match code {
                    $($code => Some(ErrorCode::$name),)*
                    _ => None,
                }
            }
        }
    };
}

error_codes! {
    UnknownServerError = -1,
    None = 0,
    OffsetOutOfRange = 1,
    CorruptMessage = 2,
    UnknownTopicOrPartition = 3,
    InvalidFetchSize = 4,
    LeaderNotAvailable = 5,
    NotLeaderOrFollower = 6,
    RequestTimedOut = 7,
    BrokerNotAvailable = 8,
    ReplicaNotAvailable = 9,
    MessageTooLarge = 10,
    NetworkException = 13,
    CoordinatorLoadInProgress = 14,
    CoordinatorNotAvailable = 15,
    NotCoordinator = 16,
    InvalidTopicException = 17,
    RecordListTooLarge = 18,
    NotEnoughReplicas = 19,
    NotEnoughReplicasAfterAppend = 20,
    InvalidRequiredAcks = 21,
    TopicAuthorizationFailed = 29,
    ClusterAuthorizationFailed = 31,
    InvalidTimestamp = 32,
    UnsupportedVersion = 35,
    InvalidRequest = 42,
    UnsupportedForMessageFormat = 43,
    PolicyViolation = 44,
    OutOfOrderSequenceNumber = 45,
    DuplicateSequenceNumber = 46,
    InvalidProducerEpoch = 47,
    InvalidTxnState = 48,
    InvalidProducerIdMapping = 49,
    ConcurrentTransactions = 51,
    TransactionCoordinatorFenced = 52,
    KafkaStorageError = 56,
    UnknownProducerId = 59,
    FetchSessionIdNotFound = 70,
    InvalidFetchSessionEpoch = 71,
    FencedLeaderEpoch = 74,
    UnknownLeaderEpoch = 75,
    UnsupportedCompressionType = 76,
    OffsetNotAvailable = 78,
    InvalidRecord = 87,
    ProducerFenced = 90,
    UnknownTopicId = 100,
    InconsistentTopicId = 103,
    FetchSessionTopicIdError = 106,
    TransactionAbortable = 120,
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} ({})", self, self.code())
    }
}

impl std::error::Error for ErrorCode {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for (code, _) in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_code(code.code()), Some(*code));
        }
        assert_eq!(ErrorCode::CorruptMessage.code(), 2);
        assert_eq!(ErrorCode::from_code(9999), None);
    }
}

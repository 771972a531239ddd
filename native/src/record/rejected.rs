//! A produced batch refused, with the records that broke a per-record rule (KIP-467), so a
//! client can tell its bad records from the good ones. The texts are Kafka's `LogValidator`'s,
//! word for word: clients and operators grep for them.

use crate::error::ErrorCode;

/// A per-record rule a record broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordRule {
    /// A compacted topic's record without a key.
    MissingKey,
    /// A CreateTime timestamp outside `[now - before.max, now + after.max]`.
    Timestamp {
        timestamp: i64,
        offset: i64,
        low: i64,
        high: i64,
    },
}

/// Why a batch was refused: the error code, and for per-record rules each offending record by
/// its index in the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub code: ErrorCode,
    pub records: Vec<(i32, RecordRule)>,
}

impl From<ErrorCode> for Rejected {
    fn from(code: ErrorCode) -> Self {
        Rejected {
            code,
            records: Vec::new(),
        }
    }
}

impl Rejected {
    /// Refused for the records' rules: INVALID_TIMESTAMP if any timestamp is out of range
    /// (Kafka's precedence), INVALID_RECORD otherwise.
    pub fn for_records(records: Vec<(i32, RecordRule)>) -> Self {
        let timestamp = records
            .iter()
            .any(|(_, rule)| matches!(rule, RecordRule::Timestamp { .. }));
        Rejected {
            code: if timestamp {
                ErrorCode::InvalidTimestamp
            } else {
                ErrorCode::InvalidRecord
            },
            records,
        }
    }

    /// Each record's error as Produce v8+ carries it: `(batch_index, message)`.
    pub fn record_errors(&self, topic: &str, partition: i32) -> Vec<(i32, String)> {
        self.records
            .iter()
            .map(|(index, rule)| (*index, rule_message(rule, topic, partition)))
            .collect()
    }

    /// The partition's `error_message`: Kafka's summary of the record errors; None when the
    /// refusal was not about individual records.
    pub fn message(&self, topic: &str, partition: i32) -> Option<String> {
        if self.records.is_empty() {
            return None;
        }
        if self.code == ErrorCode::InvalidTimestamp {
            return Some("One or more records have been rejected due to invalid timestamp".into());
        }
        let shown: Vec<String> = self
            .record_errors(topic, partition)
            .into_iter()
            .take(3)
            .map(|(index, message)| format!("RecordError(batchIndex={index}, message='{message}')"))
            .collect();
        Some(format!(
            "One or more records have been rejected due to {} record errors in total, and only \
             showing the first three errors at most: [{}]",
            self.records.len(),
            shown.join(", ")
        ))
    }
}

fn rule_message(rule: &RecordRule, topic: &str, partition: i32) -> String {
    match rule {
        RecordRule::MissingKey => format!(
            "Compacted topic cannot accept message without key in topic partition \
             {topic}-{partition}"
        ),
        RecordRule::Timestamp {
            timestamp,
            offset,
            low,
            high,
        } => format!(
            "Timestamp {timestamp} of message with offset {offset} is out of range. The \
             timestamp should be within [{low}, {high}]"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_kafkas() {
        let keys = Rejected::for_records((1..=4).map(|i| (i, RecordRule::MissingKey)).collect());
        assert_eq!(keys.code, ErrorCode::InvalidRecord);
        let one = "Compacted topic cannot accept message without key in topic partition cmp-0";
        assert_eq!(keys.record_errors("cmp", 0)[3], (4, one.to_string()));
        assert_eq!(
            keys.message("cmp", 0).expect("a summary"),
            format!(
                "One or more records have been rejected due to 4 record errors in total, and \
                 only showing the first three errors at most: [RecordError(batchIndex=1, \
                 message='{one}'), RecordError(batchIndex=2, message='{one}'), \
                 RecordError(batchIndex=3, message='{one}')]"
            )
        );
        let mixed = Rejected::for_records(vec![
            (0, RecordRule::MissingKey),
            (
                1,
                RecordRule::Timestamp {
                    timestamp: 5,
                    offset: 1,
                    low: 10,
                    high: 20,
                },
            ),
        ]);
        assert_eq!(mixed.code, ErrorCode::InvalidTimestamp);
        assert_eq!(
            mixed.record_errors("t", 0)[1].1,
            "Timestamp 5 of message with offset 1 is out of range. The timestamp should be \
             within [10, 20]"
        );
        assert_eq!(
            mixed.message("t", 0).as_deref(),
            Some("One or more records have been rejected due to invalid timestamp")
        );
        assert_eq!(
            Rejected::from(ErrorCode::CorruptMessage).message("t", 0),
            None
        );
    }
}

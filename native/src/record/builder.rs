//! Builds RecordBatch v2 bytes: used by tests everywhere, by the control plane for internal
//! topics, and for transaction markers. (Interface fixed; bodies being implemented.)

use super::compression::Codec;

/// One record to put in a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    /// Absolute timestamp in milliseconds.
    pub timestamp: i64,
}

#[derive(Debug, Clone)]
pub struct BatchBuilder {
    pub codec: Codec,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub transactional: bool,
    pub control: bool,
    pub records: Vec<Record>,
}

impl BatchBuilder {
    pub fn new(codec: Codec) -> Self {
        BatchBuilder {
            codec,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            transactional: false,
            control: false,
            records: Vec::new(),
        }
    }

    /// The batch with BaseOffset 0 and a valid CRC, as a producer sends it.
    pub fn build(&self) -> Vec<u8> {
        todo!("record::builder::build")
    }
}

//! `records::replay_batches`: what a coordinator's load reads back.

use super::builder::{control_batch, BatchBuilder, Record};
use super::compression::Codec;
use super::records::replay_batches;
use crate::error::ErrorCode;

/// A record's key and value.
type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

fn data(codec: Codec, pairs: &[(&[u8], Option<&[u8]>)]) -> Vec<u8> {
    let mut b = BatchBuilder::new(codec);
    for (key, value) in pairs {
        b = b.record(Record::new(Some(key), *value, 1_000));
    }
    b.build()
}

#[test]
fn data_batches_markers_and_a_partial_tail() {
    let mut log = data(Codec::None, &[(b"k1", Some(b"v1")), (b"k2", None)]);
    log.extend(data(Codec::Lz4, &[(b"k3", Some(b"v3"))]));
    log.extend(control_batch(7, 2, true, 5, 1_000));
    let whole = log.len();
    // A bounded read may end inside a batch: it is left for the next read.
    let tail = data(Codec::None, &[(b"k4", Some(b"v4"))]);
    log.extend(&tail[..tail.len() - 3]);

    let batches = replay_batches(&log, 1 << 20).expect("decodes");
    assert_eq!(batches.len(), 3);
    let kv = |i: usize| -> Vec<KeyValue> {
        batches[i]
            .records
            .iter()
            .map(|r| (r.key.clone(), r.value.clone()))
            .collect()
    };
    assert_eq!(
        kv(0),
        vec![
            (Some(b"k1".to_vec()), Some(b"v1".to_vec())),
            (Some(b"k2".to_vec()), None)
        ]
    );
    assert_eq!(kv(1), vec![(Some(b"k3".to_vec()), Some(b"v3".to_vec()))]);
    let marker = batches[2].marker.expect("a marker");
    assert!(marker.commit);
    assert_eq!(
        (
            batches[2].header.producer_id,
            batches[2].header.producer_epoch
        ),
        (7, 2)
    );
    assert!(batches[2].records.is_empty() && batches[0].marker.is_none());
    assert_eq!(replay_batches(&log[..whole], 1 << 20).unwrap().len(), 3);
}

#[test]
fn corrupt_data_is_an_error() {
    let mut batch = data(Codec::None, &[(b"k", Some(b"v"))]);
    let last = batch.len() - 1;
    batch[last] = 0x7f; // the record's headers count now runs past its end
    assert_eq!(
        replay_batches(&batch, 1 << 20).unwrap_err(),
        ErrorCode::InvalidRecord
    );
    assert!(replay_batches(&[0u8; 70], 1 << 20).is_err());
}

//! A structural pre-check of request bodies before the generated decoder runs.
//!
//! The generated decoder reserves `Vec::with_capacity(count)` straight from an array count on
//! the wire, so a 30-byte request claiming 2^31 topics makes it ask for hundreds of GB, and an
//! allocation failure aborts the process. Walking the body first with each API's field layout
//! (from the schemas in `kafka-protocol/messages/`) proves every array count is backed by real
//! elements, so the decoder then allocates in proportion to the bytes actually received.

use bytes::Buf;

/// One field's wire shape. Nullability needs no case: a null is just a short length.
#[derive(Debug, Clone)]
enum F {
    Fixed(usize),
    /// STRING (int16 length) or COMPACT_STRING.
    Str,
    /// BYTES/records (int32 length) or COMPACT_BYTES.
    Bytes,
    Array(Vec<F>),
    /// An array of fixed-width primitives (no tag section per element).
    Ints(usize),
}

use F::{Array, Bytes, Fixed, Ints, Str};

fn when(cond: bool, f: F) -> Option<F> {
    cond.then_some(f)
}

fn produce(v: i16) -> Vec<F> {
    let partition = vec![Fixed(4), Bytes];
    // v13 names topics by a 16-byte id (KIP-516)
    let topic = vec![if v >= 13 { Fixed(16) } else { Str }, Array(partition)];
    vec![Str, Fixed(2), Fixed(4), Array(topic)]
}

fn fetch(v: i16) -> Vec<F> {
    let partition: Vec<F> = [
        Some(Fixed(4)),
        when(v >= 9, Fixed(4)),
        Some(Fixed(8)),
        when(v >= 12, Fixed(4)),
        when(v >= 5, Fixed(8)),
        Some(Fixed(4)),
    ]
    .into_iter()
    .flatten()
    .collect();
    // v13 names topics by a 16-byte id; v15 drops the replica id (a tagged field now)
    let topic_name = if v >= 13 { Fixed(16) } else { Str };
    let topic = vec![topic_name.clone(), Array(partition)];
    let replica_id = if v >= 15 { 0 } else { 4 };
    [
        Some(Fixed(replica_id + 4 + 4 + 4 + 1)),
        when(v >= 7, Fixed(8)),
        Some(Array(topic)),
        when(v >= 7, Array(vec![topic_name, Ints(4)])),
        when(v >= 11, Str),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn list_offsets(v: i16) -> Vec<F> {
    let partition: Vec<F> = [Some(Fixed(4)), when(v >= 4, Fixed(4)), Some(Fixed(8))]
        .into_iter()
        .flatten()
        .collect();
    let topic = vec![Str, Array(partition)];
    [
        Some(Fixed(4)),
        when(v >= 2, Fixed(1)),
        Some(Array(topic)),
        when(v >= 10, Fixed(4)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn offset_for_leader_epoch(v: i16) -> Vec<F> {
    let topic = vec![Str, Array(vec![Fixed(4), Fixed(4), Fixed(4)])];
    [when(v >= 3, Fixed(4)), Some(Array(topic))]
        .into_iter()
        .flatten()
        .collect()
}

fn write_txn_markers(v: i16) -> Vec<F> {
    let topic = vec![Str, Ints(4)];
    // producer id, epoch and result; the topics; the coordinator epoch; v2's version
    let marker = [
        Some(Fixed(8 + 2 + 1)),
        Some(Array(topic)),
        Some(Fixed(4)),
        when(v >= 2, Fixed(1)),
    ];
    vec![Array(marker.into_iter().flatten().collect())]
}

fn acknowledgement_batches() -> F {
    // first and last offset, the types
    Array(vec![Fixed(8 + 8), Ints(1)])
}

/// ShareFetch's fields before v2 adds ShareAcquireMode and IsRenewAck: group, member; epoch,
/// max wait, min bytes, max bytes, max records, batch size.
fn share_fetch_head() -> Vec<F> {
    vec![Str, Str, Fixed(24)]
}

/// ShareAcknowledge's fields before v2 adds IsRenewAck: group, member, epoch.
fn share_acknowledge_head() -> Vec<F> {
    vec![Str, Str, Fixed(4)]
}

fn share_fetch(v: i16) -> Vec<F> {
    let partition = vec![Fixed(4), acknowledgement_batches()];
    let topic = vec![Fixed(16), Array(partition)];
    let mut fields = share_fetch_head();
    fields.extend(when(v >= 2, Fixed(2)));
    fields.extend([Array(topic), Array(vec![Fixed(16), Ints(4)])]);
    fields
}

fn share_acknowledge(v: i16) -> Vec<F> {
    let partition = vec![Fixed(4), acknowledgement_batches()];
    let mut fields = share_acknowledge_head();
    fields.extend(when(v >= 2, Fixed(1)));
    fields.push(Array(vec![Fixed(16), Array(partition)]));
    fields
}

/// Versions that only add fixed-width fields to an older version's, after its first fields:
/// where the added bytes are in `body` (a flexible body `body_is_sound` accepted), how many,
/// and the older version, whose layout the rest has.
pub fn added_fields(api_key: i16, version: i16, body: &[u8]) -> Option<(i16, usize, usize)> {
    let (head, width) = match (api_key, version) {
        (super::SHARE_FETCH, 2) => (share_fetch_head(), 2),
        (super::SHARE_ACKNOWLEDGE, 2) => (share_acknowledge_head(), 1),
        _ => return None,
    };
    let mut w = Walker {
        buf: body,
        flexible: true,
    };
    w.fields(&head)?;
    let at = body.len() - w.buf.len();
    (body.len() >= at + width).then_some((1, at, width))
}

/// The response side of [`added_fields`]: the older version a response of `version` is
/// encoded as, and the fields before the ones `version` adds.
fn response_head(api_key: i16, version: i16) -> Option<(i16, Vec<F>)> {
    match (api_key, version) {
        // ShareAcknowledge v2: AcquisitionLockTimeoutMs after throttle time, error code and
        // message.
        (super::SHARE_ACKNOWLEDGE, 2) => Some((1, vec![Fixed(4 + 2), Str])),
        _ => None,
    }
}

/// The older version a response of `version` is encoded as, if `version` only adds fields.
pub fn response_older(api_key: i16, version: i16) -> Option<i16> {
    response_head(api_key, version).map(|(older, _)| older)
}

/// Where, in a response body encoded as [`response_older`], the added fields go.
pub fn response_added_at(api_key: i16, version: i16, body: &[u8]) -> Option<usize> {
    let (_, head) = response_head(api_key, version)?;
    let mut w = Walker {
        buf: body,
        flexible: true,
    };
    w.fields(&head)?;
    Some(body.len() - w.buf.len())
}

struct Walker<'a> {
    buf: &'a [u8],
    flexible: bool,
}

impl Walker<'_> {
    fn take(&mut self, n: usize) -> Option<()> {
        (self.buf.remaining() >= n).then(|| self.buf.advance(n))
    }

    fn uvarint(&mut self) -> Option<u32> {
        let mut value = 0u32;
        for i in 0..5 {
            let b = *self.buf.first()?;
            self.buf.advance(1);
            value |= u32::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Some(value);
            }
        }
        None
    }

    /// A length or count: None = malformed, Some(0) also covers null.
    fn length(&mut self, classic_width: usize) -> Option<usize> {
        if self.flexible {
            return Some(self.uvarint()?.saturating_sub(1) as usize);
        }
        let n = match classic_width {
            2 => i64::from(self.buf.try_get_i16().ok()?),
            _ => i64::from(self.buf.try_get_i32().ok()?),
        };
        if n < -1 {
            return None;
        }
        Some(n.max(0) as usize)
    }

    fn tags(&mut self) -> Option<()> {
        if !self.flexible {
            return Some(());
        }
        for _ in 0..self.uvarint()? {
            self.uvarint()?;
            let size = self.uvarint()? as usize;
            self.take(size)?;
        }
        Some(())
    }

    fn fields(&mut self, fields: &[F]) -> Option<()> {
        for f in fields {
            match f {
                Fixed(n) => self.take(*n)?,
                Str => {
                    let n = self.length(2)?;
                    self.take(n)?
                }
                Bytes => {
                    let n = self.length(4)?;
                    self.take(n)?
                }
                Ints(width) => {
                    let count = self.length(4)?;
                    self.take(count.checked_mul(*width)?)?
                }
                Array(elem) => {
                    let count = self.length(4)?;
                    // every element takes at least one byte
                    if count > self.buf.remaining() {
                        return None;
                    }
                    for _ in 0..count {
                        self.fields(elem)?;
                        self.tags()?;
                    }
                }
            }
        }
        Some(())
    }
}

/// Whether `body` (after the request header) is structurally sound for `api_key` at `version`.
/// Trailing bytes are allowed, as the decoder allows them.
pub fn body_is_sound(api_key: i16, version: i16, flexible: bool, body: &[u8]) -> bool {
    let fields = match api_key {
        super::PRODUCE => produce(version),
        super::FETCH => fetch(version),
        super::LIST_OFFSETS => list_offsets(version),
        super::OFFSET_FOR_LEADER_EPOCH => offset_for_leader_epoch(version),
        super::WRITE_TXN_MARKERS => write_txn_markers(version),
        super::SHARE_FETCH => share_fetch(version),
        super::SHARE_ACKNOWLEDGE => share_acknowledge(version),
        _ => return false,
    };
    let mut w = Walker {
        buf: body,
        flexible,
    };
    w.fields(&fields).and_then(|_| w.tags()).is_some()
}

#[cfg(test)]
mod tests {
    use bytes::{Bytes, BytesMut};
    use kafka_protocol::messages::fetch_request::{
        self, FetchPartition, FetchTopic, ForgottenTopic,
    };
    use kafka_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
    use kafka_protocol::messages::offset_for_leader_epoch_request::{
        OffsetForLeaderPartition, OffsetForLeaderTopic,
    };
    use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kafka_protocol::messages::*;
    use kafka_protocol::protocol::{Encodable, HeaderVersion, StrBytes};

    use super::{added_fields, body_is_sound};
    use crate::protocol::{layout_version, NATIVE_API_VERSIONS};

    fn name(s: &'static str) -> TopicName {
        TopicName(StrBytes::from_static_str(s))
    }

    fn encoded<M: Encodable + HeaderVersion>(m: &M, v: i16) -> (bool, Vec<u8>) {
        let mut buf = BytesMut::new();
        m.encode(&mut buf, v).expect("encodes");
        (M::header_version(v) >= 2, buf.to_vec())
    }

    /// A populated request of each native API at `v`, as the generated encoder writes it.
    fn sample(key: i16, v: i16) -> (bool, Vec<u8>) {
        match key {
            78 => {
                use kafka_protocol::messages::share_fetch_request as sf;
                let batch = sf::AcknowledgementBatch::default()
                    .with_first_offset(3)
                    .with_last_offset(4)
                    .with_acknowledge_types(vec![1, 2]);
                let partition = sf::FetchPartition::default()
                    .with_partition_index(1)
                    .with_acknowledgement_batches(vec![batch]);
                encoded(
                    &ShareFetchRequest::default()
                        .with_group_id(Some(GroupId(StrBytes::from_static_str("g"))))
                        .with_member_id(Some(StrBytes::from_static_str("m")))
                        .with_topics(vec![sf::FetchTopic::default()
                            .with_partitions(vec![partition, sf::FetchPartition::default()])])
                        .with_forgotten_topics_data(vec![
                            sf::ForgottenTopic::default().with_partitions(vec![1, 2])
                        ]),
                    v,
                )
            }
            79 => {
                use kafka_protocol::messages::share_acknowledge_request as sa;
                let batch = sa::AcknowledgementBatch::default()
                    .with_first_offset(3)
                    .with_last_offset(3)
                    .with_acknowledge_types(vec![1]);
                encoded(
                    &ShareAcknowledgeRequest::default()
                        .with_group_id(Some(GroupId(StrBytes::from_static_str("g"))))
                        .with_member_id(Some(StrBytes::from_static_str("m")))
                        .with_topics(vec![sa::AcknowledgeTopic::default()
                            .with_partitions(vec![sa::AcknowledgePartition::default()
                                .with_acknowledgement_batches(vec![batch])])]),
                    v,
                )
            }
            0 => encoded(
                &ProduceRequest::default()
                    .with_acks(-1)
                    .with_topic_data(vec![TopicProduceData::default()
                        .with_name(name("a"))
                        .with_topic_id([7u8; 16].to_vec().try_into().expect("16 bytes"))
                        .with_partition_data(vec![
                            PartitionProduceData::default()
                                .with_records(Some(Bytes::from_static(b"xyz"))),
                            PartitionProduceData::default().with_index(1),
                        ])]),
                v,
            ),
            1 => {
                let mut r = FetchRequest::default().with_topics(vec![FetchTopic::default()
                    .with_topic(name("a"))
                    .with_partitions(vec![FetchPartition::default(); 2])]);
                if v >= 7 {
                    r = r.with_forgotten_topics_data(vec![ForgottenTopic::default()
                        .with_topic(name("b"))
                        .with_partitions(vec![1, 2])]);
                }
                if v >= 11 {
                    r = r.with_rack_id(StrBytes::from_static_str("rack"));
                }
                if v >= 15 {
                    r = r.with_replica_state(
                        fetch_request::ReplicaState::default().with_replica_id(BrokerId(3)),
                    );
                }
                encoded(&r, v)
            }
            2 => encoded(
                &ListOffsetsRequest::default().with_topics(vec![ListOffsetsTopic::default()
                    .with_name(name("a"))
                    .with_partitions(vec![ListOffsetsPartition::default(); 3])]),
                v,
            ),
            27 => {
                let marker =
                    write_txn_markers_request::WritableTxnMarker::default().with_topics(vec![
                        write_txn_markers_request::WritableTxnMarkerTopic::default()
                            .with_name(name("a"))
                            .with_partition_indexes(vec![0, 1]),
                    ]);
                let (flexible, mut body) = encoded(
                    &WriteTxnMarkersRequest::default().with_markers(vec![marker]),
                    1,
                );
                if v >= 2 {
                    // v2's transaction version, before the marker's and the body's tags.
                    body.insert(body.len() - 2, 2);
                }
                (flexible, body)
            }
            _ => encoded(
                &OffsetForLeaderEpochRequest::default().with_topics(vec![
                    OffsetForLeaderTopic::default()
                        .with_topic(name("a"))
                        .with_partitions(vec![OffsetForLeaderPartition::default(); 2]),
                ]),
                v,
            ),
        }
    }

    #[test]
    fn accepts_every_version_the_encoder_writes_and_rejects_truncations() {
        for (key, min, max) in NATIVE_API_VERSIONS {
            for v in *min..=*max {
                // A version with an older one's fields is written in that layout; one that
                // adds fields to an older one's, as that one with the added bytes put in.
                let adds = matches!((*key, v), (78 | 79, 2));
                let layout = if adds { v - 1 } else { layout_version(*key, v) };
                let (flexible, mut body) = sample(*key, layout);
                if adds {
                    let (_, at, width) = added_fields(*key, v, &body).expect("the head is there");
                    body = [&body[..at], &vec![1; width][..], &body[at..]].concat();
                }
                assert!(body_is_sound(*key, v, flexible, &body), "api {key} v{v}");
                for cut in 0..body.len() {
                    // a cut may land on a valid shorter prefix only if nothing was required
                    // after it; the encoder always writes the whole top-level struct
                    assert!(
                        !body_is_sound(*key, v, flexible, &body[..cut]),
                        "api {key} v{v} cut {cut}"
                    );
                }
            }
        }
    }

    #[test]
    fn rejects_counts_larger_than_the_body() {
        let mut body = vec![0u8; 17];
        body.extend_from_slice(&i32::MAX.to_be_bytes());
        assert!(!body_is_sound(1, 4, false, &body));
        // flexible: compact count of 2^28
        let mut body = vec![0u8; 25];
        body.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x01]);
        assert!(!body_is_sound(1, 12, true, &body));
    }
}

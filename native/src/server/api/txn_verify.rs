//! KIP-890 part 1: before a partition leader appends a batch that would open a transaction
//! on a partition, the transaction coordinator confirms the producer added the partition to
//! its ongoing transaction. Otherwise a late or stray batch (from a producer that never
//! called AddPartitionsToTxn, or from a transaction that has ended) would open a transaction
//! nobody ends, and hold the last stable offset forever.
//!
//! The question goes to the control plane as an AddPartitionsToTxn v4 VerifyOnly request on
//! the control bridge, from [`NATIVE_PEER`]; Python answers from its own coordinator or asks
//! the coordinator's broker. One question per Produce request covers all its partitions, and
//! a confirmed (producer, epoch) is kept per partition until the transaction's marker, so the
//! rest of the transaction's batches never leave the native core.
//!
//! KIP-890 part 2 (transaction version 2): a producer that sends Produce v12+ adds no
//! partitions itself. The leader asks the coordinator to add them (VerifyOnly false), always,
//! whatever `transaction.partition.verification.enable` says, and waits out a coordinator
//! still finishing the producer's previous transaction for a moment, as Kafka's leader does.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use kafka_protocol::messages::add_partitions_to_txn_request::{
    AddPartitionsToTxnTopic, AddPartitionsToTxnTransaction,
};
use kafka_protocol::messages::{
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, ApiKey, ProducerId, TopicName,
    TransactionalId,
};
use kafka_protocol::protocol::StrBytes;

use super::produce::PartitionRecords;
use crate::error::ErrorCode;
use crate::record::batch::BatchHeader;
use crate::server::Broker;

/// The peer named on the control plane's requests that the native core itself asks; the
/// control plane may forward these to another broker (`add_partitions_to_txn.py`).
pub const NATIVE_PEER: &str = "ferrolog-native";
const API_KEY: i16 = ApiKey::AddPartitionsToTxn as i16;
const VERSION: i16 = 4;
/// Produce v11 clients know TRANSACTION_ABORTABLE (KIP-890).
const ABORTABLE_PRODUCE_VERSION: i16 = 11;
/// Produce v12+ producers use transaction version 2: the leader adds their partitions.
pub const ADD_PRODUCE_VERSION: i16 = 12;
/// Kafka's `add.partitions.to.txn.retry.backoff.ms` and `.max.ms`: how long the leader
/// retries an add the coordinator answers CONCURRENT_TRANSACTIONS (the previous transaction's
/// markers being written).
const ADD_RETRY_BACKOFF: Duration = Duration::from_millis(20);
const ADD_RETRY_MAX: Duration = Duration::from_millis(100);

/// The partitions of a Produce request whose transactional batch needs the coordinator's
/// confirmation, asked about (one question per producer), and the error each one that was
/// not confirmed answers with. Confirmed ones are remembered by their partition.
pub async fn check_produce(
    broker: &Arc<Broker>,
    transactional_id: Option<&str>,
    topics: &[(String, PartitionRecords)],
    produce_version: i16,
    timeout: Duration,
) -> HashMap<(String, i32), ErrorCode> {
    let mut asks: HashMap<(i64, i16), Vec<(String, i32)>> = HashMap::new();
    for (topic, partitions) in topics {
        for (index, records) in partitions {
            let Some(records) = records else { continue };
            let Ok(header) = BatchHeader::parse(records) else {
                continue;
            };
            let Some(partition) = broker.partitions.get(topic, *index) else {
                continue;
            };
            if partition.needs_txn_verification(&header) {
                asks.entry((header.producer_id, header.producer_epoch))
                    .or_default()
                    .push((topic.clone(), *index));
            }
        }
    }
    let mut refused = HashMap::new();
    for ((producer_id, producer_epoch), partitions) in asks {
        let Some(transactional_id) = transactional_id else {
            // Transactional batches from a producer that names no transaction.
            refused.extend(
                partitions
                    .into_iter()
                    .map(|tp| (tp, ErrorCode::InvalidTxnState)),
            );
            continue;
        };
        let producer = Producer {
            transactional_id,
            producer_id,
            producer_epoch,
        };
        let answers = verify(broker, &producer, &partitions, produce_version, timeout).await;
        for (tp, error) in answers {
            if error == ErrorCode::None {
                if let Some(partition) = broker.partitions.get(&tp.0, tp.1) {
                    partition.mark_txn_verified(producer_id, producer_epoch);
                }
            } else {
                refused.insert(tp, error);
            }
        }
    }
    refused
}

/// One producer's question: its transactional id, producer id and epoch.
pub struct Producer<'a> {
    pub transactional_id: &'a str,
    pub producer_id: i64,
    pub producer_epoch: i16,
}

/// Asks whether each of `partitions` is in the producer's ongoing transaction; the error each
/// one's Produce answers with (`ErrorCode::None`: confirmed), as Kafka translates the
/// coordinator's answer for a producer of `produce_version`.
pub async fn verify(
    broker: &Arc<Broker>,
    producer: &Producer<'_>,
    partitions: &[(String, i32)],
    produce_version: i16,
    timeout: Duration,
) -> HashMap<(String, i32), ErrorCode> {
    let add = produce_version >= ADD_PRODUCE_VERSION;
    let started = tokio::time::Instant::now();
    let codes = loop {
        let answered = tokio::time::timeout(timeout, ask(broker, producer, partitions, !add)).await;
        let codes = match answered {
            Ok(Some(codes)) => codes,
            // No answer (shutdown, a timeout, an unreadable reply): the producer retries.
            _ => HashMap::new(),
        };
        let concurrent = ErrorCode::ConcurrentTransactions.code();
        let waited = started.elapsed() + ADD_RETRY_BACKOFF;
        if !add || !codes.values().any(|&c| c == concurrent) || waited > ADD_RETRY_MAX {
            break codes;
        }
        tokio::time::sleep(ADD_RETRY_BACKOFF).await;
    };
    partitions
        .iter()
        .map(|tp| {
            let code = codes
                .get(tp)
                .copied()
                .unwrap_or(ErrorCode::NotEnoughReplicas.code());
            (tp.clone(), produce_error(code, produce_version))
        })
        .collect()
}

/// Kafka's translation of a verification answer for Produce: the coordinator being away or
/// busy is retriable (NOT_ENOUGH_REPLICAS); anything else means the transaction cannot take
/// the batch (TRANSACTION_ABORTABLE for clients that know it).
fn produce_error(code: i16, produce_version: i16) -> ErrorCode {
    let error = ErrorCode::from_code(code).unwrap_or(ErrorCode::UnknownServerError);
    if produce_version >= ADD_PRODUCE_VERSION {
        return added_error(error);
    }
    match error {
        ErrorCode::None => ErrorCode::None,
        ErrorCode::CoordinatorLoadInProgress
        | ErrorCode::CoordinatorNotAvailable
        | ErrorCode::NotCoordinator
        | ErrorCode::ConcurrentTransactions
        | ErrorCode::RequestTimedOut
        | ErrorCode::NetworkException
        | ErrorCode::NotEnoughReplicas => ErrorCode::NotEnoughReplicas,
        _ if produce_version >= ABORTABLE_PRODUCE_VERSION => ErrorCode::TransactionAbortable,
        ErrorCode::ProducerFenced => ErrorCode::InvalidProducerEpoch,
        ErrorCode::InvalidProducerEpoch | ErrorCode::InvalidProducerIdMapping => error,
        _ => ErrorCode::InvalidTxnState,
    }
}

/// Kafka's translation of an add's answer for Produce v12+ (ADD_PARTITION): a fenced epoch is
/// INVALID_PRODUCER_EPOCH, a coordinator away is retriable (NOT_ENOUGH_REPLICAS), a previous
/// transaction still completing is CONCURRENT_TRANSACTIONS, the rest as the coordinator said.
fn added_error(error: ErrorCode) -> ErrorCode {
    match error {
        ErrorCode::ProducerFenced => ErrorCode::InvalidProducerEpoch,
        ErrorCode::CoordinatorLoadInProgress
        | ErrorCode::CoordinatorNotAvailable
        | ErrorCode::NotCoordinator
        | ErrorCode::RequestTimedOut
        | ErrorCode::NetworkException
        | ErrorCode::NotEnoughReplicas => ErrorCode::NotEnoughReplicas,
        other => other,
    }
}

async fn ask(
    broker: &Arc<Broker>,
    producer: &Producer<'_>,
    partitions: &[(String, i32)],
    verify_only: bool,
) -> Option<HashMap<(String, i32), i16>> {
    let mut by_topic: Vec<(String, Vec<i32>)> = Vec::new();
    for (topic, partition) in partitions {
        match by_topic.iter_mut().find(|(t, _)| t == topic) {
            Some((_, ps)) => ps.push(*partition),
            None => by_topic.push((topic.clone(), vec![*partition])),
        }
    }
    let transaction = AddPartitionsToTxnTransaction::default()
        .with_transactional_id(TransactionalId(StrBytes::from_string(
            producer.transactional_id.to_string(),
        )))
        .with_producer_id(ProducerId(producer.producer_id))
        .with_producer_epoch(producer.producer_epoch)
        .with_verify_only(verify_only)
        .with_topics(
            by_topic
                .into_iter()
                .map(|(name, ps)| {
                    AddPartitionsToTxnTopic::default()
                        .with_name(TopicName(StrBytes::from_string(name)))
                        .with_partitions(ps)
                })
                .collect(),
        );
    let request = AddPartitionsToTxnRequest::default().with_transactions(vec![transaction]);
    let response: AddPartitionsToTxnResponse =
        super::ask_control(broker, API_KEY, VERSION, &request).await?;
    let mut codes = HashMap::new();
    for result in response.results_by_transaction {
        for topic in result.topic_results {
            for p in topic.results_by_partition {
                let code = if response.error_code != 0 {
                    response.error_code
                } else {
                    p.partition_error_code
                };
                codes.insert((topic.name.0.to_string(), p.partition_index), code);
            }
        }
    }
    Some(codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinator_trouble_is_retriable_and_the_rest_abortable() {
        let retriable = [14, 15, 16, 51, 7];
        for code in retriable {
            assert_eq!(produce_error(code, 9), ErrorCode::NotEnoughReplicas);
            assert_eq!(produce_error(code, 11), ErrorCode::NotEnoughReplicas);
        }
        assert_eq!(produce_error(0, 11), ErrorCode::None);
        assert_eq!(produce_error(48, 9), ErrorCode::InvalidTxnState);
        assert_eq!(produce_error(48, 11), ErrorCode::TransactionAbortable);
        assert_eq!(produce_error(90, 9), ErrorCode::InvalidProducerEpoch);
        assert_eq!(produce_error(49, 3), ErrorCode::InvalidProducerIdMapping);
        assert_eq!(produce_error(49, 11), ErrorCode::TransactionAbortable);
    }

    #[test]
    fn an_adds_answer_passes_through_but_fencing_and_coordinator_trouble() {
        for version in [12, 13] {
            assert_eq!(produce_error(0, version), ErrorCode::None);
            assert_eq!(produce_error(90, version), ErrorCode::InvalidProducerEpoch);
            assert_eq!(
                produce_error(51, version),
                ErrorCode::ConcurrentTransactions
            );
            for retriable in [14, 15, 16, 7, 13] {
                assert_eq!(
                    produce_error(retriable, version),
                    ErrorCode::NotEnoughReplicas
                );
            }
            assert_eq!(produce_error(48, version), ErrorCode::InvalidTxnState);
            assert_eq!(
                produce_error(49, version),
                ErrorCode::InvalidProducerIdMapping
            );
            assert_eq!(produce_error(47, version), ErrorCode::InvalidProducerEpoch);
        }
    }
}

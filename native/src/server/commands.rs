//! The control plane's partition commands: coarse, rare, called from a Python thread (with the
//! GIL released) and never from a tokio worker. The two that wait for acks=all also come as
//! `start_*`, which append at once and finish on the runtime (see `completions`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;

use super::{Broker, Server};
use crate::error::ErrorCode;
use crate::log::{now_ms, LogConfig};
use crate::record::batch::iter_batches;
use crate::replica::{Partition, PartitionState, Registry, Role};

/// A failed command: a Kafka error, an I/O error, or a bad config value.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{0}: {1}")]
    Kafka(ErrorCode, String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Config(String),
}

impl CommandError {
    /// The error code a response carries for it (the control plane's answer too: anything
    /// but a Kafka error is UNKNOWN_SERVER_ERROR).
    pub fn error_code(&self) -> ErrorCode {
        match self {
            CommandError::Kafka(code, _) => *code,
            _ => ErrorCode::UnknownServerError,
        }
    }
}

impl From<ErrorCode> for CommandError {
    fn from(code: ErrorCode) -> Self {
        CommandError::Kafka(code, format!("{code:?}"))
    }
}

/// One partition of an `open_partitions` command.
#[derive(Debug, Clone)]
pub struct OpenRequest {
    pub topic: String,
    pub partition: i32,
    pub topic_id: [u8; 16],
    pub role: RoleRequest,
}

/// The role a partition takes once open (see `become_leader` and `become_follower`).
#[derive(Debug, Clone)]
pub enum RoleRequest {
    None,
    Leader {
        leader_epoch: i32,
        isr: Vec<i32>,
        replicas: Vec<i32>,
    },
    Follower {
        leader_epoch: i32,
        leader_id: i32,
        leader_host: String,
        leader_port: u16,
        replicas: Vec<i32>,
    },
}

/// One marker of a `write_markers` command.
#[derive(Debug, Clone)]
pub struct MarkerRequest {
    pub topic: String,
    pub partition: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub coordinator_epoch: i32,
    /// COMMIT, else ABORT.
    pub commit: bool,
    /// The transaction's version (WriteTxnMarkers v2): 2 holds the epoch to the stricter rule.
    pub transaction_version: i8,
}

/// One producer with state in a partition, as DescribeProducers reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveProducer {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub last_sequence: i32,
    pub last_timestamp: i64,
    pub coordinator_epoch: i32,
    /// First offset of its open transaction, -1 for none.
    pub current_txn_start_offset: i64,
}

/// How long `append` waits for its batches to be committed.
const APPEND_TIMEOUT: Duration = Duration::from_secs(30);

/// A marker appended to its partition (at this offset), or why it was not.
pub(crate) type Appended = Result<(Arc<Partition>, i64), CommandError>;

/// Waits until `p` has committed through `last`; `first` then, else why not.
async fn committed(p: Arc<Partition>, first: i64, last: i64) -> Result<i64, CommandError> {
    let deadline = tokio::time::Instant::now() + APPEND_TIMEOUT;
    p.wait_committed(last, deadline).await?;
    Ok(first)
}

/// Each appended marker's offset once committed, else why not; one wait covers them all.
pub(crate) async fn markers_committed(appended: Vec<Appended>) -> Vec<Result<i64, CommandError>> {
    let deadline = tokio::time::Instant::now() + APPEND_TIMEOUT;
    let mut out = Vec::with_capacity(appended.len());
    for outcome in appended {
        out.push(match outcome {
            Ok((p, offset)) => p
                .wait_committed(offset, deadline)
                .await
                .map(|()| offset)
                .map_err(CommandError::from),
            Err(e) => Err(e),
        });
    }
    out
}

/// Appends one transaction marker to its partition (this broker must lead it).
pub(crate) fn append_marker(partitions: &Registry, m: &MarkerRequest) -> Appended {
    let p = partitions
        .get(&m.topic, m.partition)
        .ok_or_else(|| CommandError::from(ErrorCode::UnknownTopicOrPartition))?;
    let appended = p.append_marker(
        m.producer_id,
        m.producer_epoch,
        m.coordinator_epoch,
        m.commit,
        m.transaction_version,
        now_ms(),
    )?;
    Ok((p, appended.base_offset))
}

impl Server {
    pub(super) fn partition(
        &self,
        topic: &str,
        partition: i32,
    ) -> Result<Arc<Partition>, CommandError> {
        self.ensure_running()?;
        self.broker()
            .partitions
            .get(topic, partition)
            .ok_or_else(|| CommandError::from(ErrorCode::UnknownTopicOrPartition))
    }

    /// Opens (recovering) or creates the partition's log and registers it with no role.
    pub fn open_partition(
        &self,
        topic: &str,
        partition: i32,
        topic_id: [u8; 16],
        config: &HashMap<String, String>,
    ) -> Result<(), CommandError> {
        self.ensure_running()?;
        let config = LogConfig::from_map(config).map_err(CommandError::Config)?;
        self.open_one(topic, partition, topic_id, &config)
    }

    fn open_one(
        &self,
        topic: &str,
        partition: i32,
        topic_id: [u8; 16],
        config: &LogConfig,
    ) -> Result<(), CommandError> {
        let broker = self.broker();
        if broker.partitions.get(topic, partition).is_some() {
            return Ok(());
        }
        let log = broker
            .logs
            .open_or_create(topic, partition, topic_id, config.clone())?;
        broker.partitions.insert_if_absent(Partition::new(
            topic,
            partition,
            topic_id,
            broker.config.node_id,
            log,
        ));
        Ok(())
    }

    /// Opens many partitions at once (Kafka's `num.recovery.threads.per.data.dir` threads for
    /// each log directory) and gives each its role as soon as it is open, so a partition is
    /// served while others are still recovering. `configs` holds each topic's resolved config,
    /// parsed once per topic rather than once per partition. Returns each partition's outcome,
    /// in order; one failure does not stop the others.
    pub fn open_partitions(
        &self,
        configs: &HashMap<String, HashMap<String, String>>,
        requests: &[OpenRequest],
    ) -> Result<Vec<Result<(), CommandError>>, CommandError> {
        self.ensure_running()?;
        let mut parsed = HashMap::with_capacity(configs.len());
        for (topic, config) in configs {
            let config = LogConfig::from_map(config).map_err(CommandError::Config)?;
            parsed.insert(topic.as_str(), config);
        }
        let started = std::time::Instant::now();
        let outcomes = self.broker().logs.parallel(requests, |r| {
            let config = parsed.get(r.topic.as_str()).ok_or_else(|| {
                CommandError::Config(format!("no config for topic {:?}", r.topic))
            })?;
            self.open_one(&r.topic, r.partition, r.topic_id, config)?;
            match &r.role {
                RoleRequest::None => Ok(()),
                RoleRequest::Leader {
                    leader_epoch,
                    isr,
                    replicas,
                } => self.become_leader(
                    &r.topic,
                    r.partition,
                    *leader_epoch,
                    isr.clone(),
                    replicas.clone(),
                ),
                RoleRequest::Follower {
                    leader_epoch,
                    leader_id,
                    leader_host,
                    leader_port,
                    replicas,
                } => self.become_follower(
                    &r.topic,
                    r.partition,
                    *leader_epoch,
                    *leader_id,
                    leader_host,
                    *leader_port,
                    replicas.clone(),
                ),
            }
        });
        let failed = outcomes.iter().filter(|o| o.is_err()).count();
        ::log::info!(
            "opened {} partitions in {} ms ({failed} failed)",
            requests.len(),
            started.elapsed().as_millis()
        );
        Ok(outcomes)
    }

    pub fn delete_partition(&self, topic: &str, partition: i32) -> Result<(), CommandError> {
        self.ensure_running()?;
        let broker = self.broker();
        if let Some(p) = broker.partitions.remove(topic, partition) {
            p.make_inactive();
        }
        // After the role is gone, so a concurrent become_follower cannot re-add a fetch.
        broker.fetchers.remove(topic, partition);
        broker.logs.delete(topic, partition)?;
        Ok(())
    }

    pub fn update_topic_config(
        &self,
        topic: &str,
        config: &HashMap<String, String>,
    ) -> Result<(), CommandError> {
        self.ensure_running()?;
        let config = LogConfig::from_map(config).map_err(CommandError::Config)?;
        for p in self.broker().partitions.topic_partitions(topic) {
            p.log().write().set_config(config.clone());
        }
        Ok(())
    }

    pub fn partition_states(&self) -> Vec<PartitionState> {
        let broker = self.broker();
        broker
            .partitions
            .all()
            .iter()
            .map(|p| state_of(broker, p))
            .collect()
    }

    /// One local replica's state, without reading every other one's.
    pub fn partition_state(&self, topic: &str, partition: i32) -> Option<PartitionState> {
        let broker = self.broker();
        broker
            .partitions
            .get(topic, partition)
            .map(|p| state_of(broker, &p))
    }

    /// Appends each batch in `records` as leader (a coordinator's batches: internal topics
    /// and transactional offset commits, not checked for sequence), waits until all are
    /// committed, and returns the base offset of the first.
    pub fn append(&self, topic: &str, partition: i32, records: &[u8]) -> Result<i64, CommandError> {
        let (p, first, last) = self.append_as_coordinator(topic, partition, records)?;
        self.block_on(committed(p, first, last))
    }

    /// `append` without waiting here: it appends now and leaves its outcome (one result) in
    /// `completions` under `token` once committed, failed or timed out.
    pub fn start_append(&self, topic: &str, partition: i32, records: &[u8], token: u64) {
        let completions = Arc::clone(&self.broker().completions);
        match self.append_as_coordinator(topic, partition, records) {
            Err(e) => completions.complete(token, vec![Err(e)]),
            Ok((p, first, last)) => {
                self.handle.spawn(async move {
                    completions.complete(token, vec![committed(p, first, last).await]);
                });
            }
        }
    }

    fn append_as_coordinator(
        &self,
        topic: &str,
        partition: i32,
        records: &[u8],
    ) -> Result<(Arc<Partition>, i64, i64), CommandError> {
        let p = self.partition(topic, partition)?;
        let mut first = None;
        let mut last = -1;
        for batch in iter_batches(records) {
            let (_, bytes) = batch?;
            let appended = p.append_as_coordinator(BytesMut::from(bytes), now_ms())?;
            first.get_or_insert(appended.base_offset);
            last = appended.last_offset;
        }
        let first = first.ok_or_else(|| {
            CommandError::Kafka(ErrorCode::InvalidRecord, "no record batch".into())
        })?;
        Ok((p, first, last))
    }

    /// Appends a transaction marker (WriteTxnMarkers from the transaction coordinator) and
    /// waits until it is committed; returns its offset.
    pub fn write_marker(&self, marker: &MarkerRequest) -> Result<i64, CommandError> {
        let mut outcomes = self.write_markers(std::slice::from_ref(marker));
        outcomes.pop().expect("one outcome per marker")
    }

    /// Appends each transaction marker (WriteTxnMarkers: one per partition of a transaction)
    /// and waits until all are committed; returns each one's offset or error, in order.
    /// Appending them all before waiting lets one wait cover a whole request.
    pub fn write_markers(&self, markers: &[MarkerRequest]) -> Vec<Result<i64, CommandError>> {
        self.block_on(markers_committed(self.append_markers(markers)))
    }

    /// `write_markers` without waiting here: its outcome (one result per marker) goes to
    /// `completions` under `token`.
    pub fn start_write_markers(&self, markers: &[MarkerRequest], token: u64) {
        let completions = Arc::clone(&self.broker().completions);
        let appended = self.append_markers(markers);
        self.handle.spawn(async move {
            completions.complete(token, markers_committed(appended).await);
        });
    }

    fn append_markers(&self, markers: &[MarkerRequest]) -> Vec<Appended> {
        let partitions = &self.broker().partitions;
        markers
            .iter()
            .map(|m| {
                self.ensure_running()?;
                append_marker(partitions, m)
            })
            .collect()
    }

    /// The producers with state in a partition this broker leads (DescribeProducers, which
    /// `kafka-transactions describe-producers` and `find-hanging` use).
    pub fn describe_producers(
        &self,
        topic: &str,
        partition: i32,
    ) -> Result<Vec<ActiveProducer>, CommandError> {
        let p = self.partition(topic, partition)?;
        p.leader_epoch_if_leader()?;
        let log = p.log().read();
        let mut producers: Vec<ActiveProducer> = log
            .producers
            .iter()
            .map(|(producer_id, e)| ActiveProducer {
                producer_id,
                producer_epoch: e.epoch,
                last_sequence: e.last_seq(),
                last_timestamp: e.last_timestamp,
                coordinator_epoch: e.coordinator_epoch,
                current_txn_start_offset: e.current_txn_first_offset.unwrap_or(-1),
            })
            .collect();
        producers.sort_by_key(|a| a.producer_id);
        Ok(producers)
    }

    /// Committed batches from `offset` (the whole batch containing it first), at least one.
    pub fn read(
        &self,
        topic: &str,
        partition: i32,
        offset: i64,
        max_bytes: u32,
    ) -> Result<Vec<u8>, CommandError> {
        let p = self.partition(topic, partition)?;
        let hw = p.log().read().high_watermark();
        if offset >= hw {
            let leo = p.log().read().log_end_offset();
            if offset > leo {
                return Err(ErrorCode::OffsetOutOfRange.into());
            }
            return Ok(Vec::new());
        }
        Ok(p.read(offset, max_bytes, hw, true)?.to_vec()?)
    }

    /// On the leader: moves the log start offset to `offset` (-1: the high watermark).
    pub fn delete_records(
        &self,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> Result<i64, CommandError> {
        let p = self.partition(topic, partition)?;
        // Followers take their log start offset from the leader's fetch responses.
        p.leader_epoch_if_leader()?;
        let mut log = p.log().write();
        let target = if offset == -1 {
            log.high_watermark()
        } else {
            offset
        };
        if target < 0 || target > log.high_watermark() {
            return Err(ErrorCode::OffsetOutOfRange.into());
        }
        Ok(log.delete_records_before(target)?)
    }
}

fn state_of(broker: &Broker, p: &Partition) -> PartitionState {
    let log_dir = broker
        .logs
        .dir_of(p.topic(), p.index())
        // `dir_of` names the partition's own directory; the state reports the log
        // directory (one of `log.dirs`) that holds it.
        .map(|d| d.parent().map(|p| p.to_path_buf()).unwrap_or(d))
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Replica state before the log lock: the partition's lock order is state,
    // then log (appends hold both), so taking them the other way round deadlocks.
    let role = p.role();
    let (leader_epoch, leader_id, isr, replicas) =
        (p.leader_epoch(), p.leader_id(), p.isr(), p.replicas());
    let log = p.log().read();
    PartitionState {
        topic: p.topic().to_string(),
        partition: p.index(),
        topic_id: p.topic_id(),
        is_leader: role == Role::Leader,
        role: role.name(),
        leader_epoch,
        leader_id,
        isr,
        replicas,
        last_stable_offset: log.last_stable_offset(),
        log_start_offset: log.log_start_offset(),
        log_end_offset: log.log_end_offset(),
        high_watermark: log.high_watermark(),
        size_bytes: log.size_bytes(),
        segment_count: log.segment_count(),
        min_insync_replicas: log.config().min_insync_replicas,
        log_dir,
    }
}

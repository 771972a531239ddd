//! Several in-process brokers on loopback, each on its own temp dir, for replication tests:
//! start, stop and restart them (same directory, same port), produce to them, and read their
//! logs directly to compare replicas byte for byte.

use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{ApiKey, ProduceRequest, ProduceResponse, TopicName};
use kafka_protocol::protocol::StrBytes;

use super::{batch, Client};
use crate::properties::{self, table::server, table::topic};
use crate::record::batch::iter_batches;
use crate::server::{PartitionState, Server};

pub(super) const T: &str = "replicated";

pub(super) struct Node {
    pub id: i32,
    dir: tempfile::TempDir,
    port: u16,
    extra: Vec<(String, String)>,
    server: Option<Server>,
}

/// Quick fetch rounds and retries so tests take milliseconds, not seconds.
const FAST: &[(&str, &str)] = &[
    ("replica.fetch.wait.max.ms", "100"),
    ("replica.fetch.backoff.ms", "50"),
];

impl Node {
    pub fn start(id: i32) -> Node {
        Self::start_with(id, &[])
    }

    pub fn start_with(id: i32, extra: &[(&str, &str)]) -> Node {
        let mut node = Node {
            id,
            dir: tempfile::tempdir().expect("tempdir"),
            port: 0,
            extra: FAST
                .iter()
                .chain(extra)
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            server: None,
        };
        node.boot();
        node
    }

    fn boot(&mut self) {
        let mut config = properties::defaults(server::ALL);
        config.extend(self.extra.iter().cloned());
        config.insert("node.id".into(), self.id.to_string());
        config.insert(
            "listeners".into(),
            format!("PLAINTEXT://127.0.0.1:{}", self.port),
        );
        config.insert(
            "log.dirs".into(),
            self.dir.path().to_str().expect("utf-8").into(),
        );
        let server = Server::new(&config).expect("server");
        self.port = server.start().expect("start");
        self.server = Some(server);
    }

    pub fn server(&self) -> &Server {
        self.server.as_ref().expect("running")
    }

    /// Shuts the broker down (logs closed cleanly, checkpoints written).
    pub fn stop(&mut self) {
        if let Some(server) = self.server.take() {
            server.shutdown().expect("shutdown");
        }
    }

    /// Starts again on the same directory and port, with `extra` settings replacing the old.
    pub fn restart_with(&mut self, extra: &[(&str, &str)]) {
        self.stop();
        for (k, v) in extra {
            self.extra.retain(|(key, _)| key != k);
            self.extra.push((k.to_string(), v.to_string()));
        }
        self.boot();
    }

    pub fn restart(&mut self) {
        self.restart_with(&[]);
    }

    pub fn open(&self, config: &[(&str, &str)]) {
        let config = properties::with_defaults(topic::ALL, config);
        self.server()
            .open_partition(T, 0, [9; 16], &config)
            .expect("open");
    }

    pub fn lead(&self, epoch: i32, isr: &[i32], replicas: &[i32]) {
        self.server()
            .become_leader(T, 0, epoch, isr.to_vec(), replicas.to_vec())
            .expect("become leader");
    }

    pub fn follow(&self, leader: &Node, epoch: i32, replicas: &[i32]) {
        self.server()
            .become_follower(
                T,
                0,
                epoch,
                leader.id,
                "127.0.0.1",
                leader.port,
                replicas.to_vec(),
            )
            .expect("become follower");
    }

    pub fn connect(&self) -> Client {
        let stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        Client::new(stream)
    }

    pub fn state(&self) -> PartitionState {
        self.server()
            .partition_states()
            .into_iter()
            .find(|s| s.topic == T && s.partition == 0)
            .expect("partition open")
    }

    /// (log end offset, high watermark).
    pub fn offsets(&self) -> (i64, i64) {
        let s = self.state();
        (s.log_end_offset, s.high_watermark)
    }

    /// Every batch of the log, read from the segment files.
    pub fn log_bytes(&self) -> Vec<u8> {
        let p = self.server().broker().partitions.get(T, 0).expect("open");
        let (mut offset, end) = {
            let log = p.log().read();
            (log.log_start_offset(), log.log_end_offset())
        };
        let mut out = Vec::new();
        while offset < end {
            let slice = p.read(offset, 1 << 20, end, true).expect("read");
            let Some(file) = slice.file else { break };
            let mut buf = vec![0u8; slice.length as usize];
            file.read_exact_at(&mut buf, slice.position).expect("read");
            let last = iter_batches(&buf)
                .map(|b| b.expect("whole batches").0.last_offset())
                .last()
                .expect("a batch");
            out.extend_from_slice(&buf);
            offset = last + 1;
        }
        out
    }

    /// The partition's own directory (inside the log directory).
    pub fn partition_dir(&self) -> std::path::PathBuf {
        self.dir.path().join(format!("{T}-0"))
    }

    pub fn epochs(&self) -> Vec<(i32, i64)> {
        let p = self.server().broker().partitions.get(T, 0).expect("open");
        let entries = p.log().read().epoch_entries();
        entries
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop();
    }
}

pub(super) fn produce_request(records: usize, acks: i16, timeout_ms: i32) -> ProduceRequest {
    ProduceRequest::default()
        .with_acks(acks)
        .with_timeout_ms(timeout_ms)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(TopicName(StrBytes::from_static_str(T)))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(0)
                // Current timestamps: with older ones retention would delete rolled segments.
                .with_records(Some(Bytes::from(batch(
                    records,
                    crate::log::now_ms(),
                ))))])])
}

/// Produces one batch of `records` records; (error code, base offset).
pub(super) fn produce(
    client: &mut Client,
    records: usize,
    acks: i16,
    timeout_ms: i32,
) -> (i16, i64) {
    let r: ProduceResponse = client.call(
        ApiKey::Produce,
        9,
        &produce_request(records, acks, timeout_ms),
    );
    let p = &r.responses[0].partition_responses[0];
    (p.error_code, p.base_offset)
}

/// Polls `check` until it holds or a few seconds pass.
pub(super) fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until `follower` holds exactly the leader's log and high watermark (equal offsets
/// alone prove nothing: diverged replicas can have them too).
pub(super) fn wait_in_sync(leader: &Node, follower: &Node) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let offsets = (leader.offsets(), follower.offsets());
        if offsets.0 == offsets.1 && leader.log_bytes() == follower.log_bytes() {
            return;
        }
        if Instant::now() >= deadline {
            assert_eq!(
                follower.log_bytes(),
                leader.log_bytes(),
                "replicas byte for byte"
            );
            panic!(
                "offsets differ: leader {:?}, follower {:?}",
                offsets.0, offsets.1
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

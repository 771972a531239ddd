use tempfile::tempdir;

use super::*;
use crate::error::ErrorCode;
use crate::log::checkpoint::read_offsets;
use crate::log::manager::{topic_id_string, CLEAN_SHUTDOWN_FILE};
use crate::log::LogManager;

const TOPIC_ID: [u8; 16] = [
    0x4b, 0x1f, 0x0c, 0x9e, 0x22, 0x5a, 0x47, 0x8d, 0x91, 0x3c, 0x6a, 0x02, 0xfe, 0x77, 0x10, 0x05,
];

#[test]
fn topic_ids_are_base64url_without_padding() {
    assert_eq!(topic_id_string([0; 16]), "AAAAAAAAAAAAAAAAAAAAAA");
    assert_eq!(topic_id_string([0xff; 16]), "_____________________w");
    assert_eq!(topic_id_string(TOPIC_ID).len(), 22);
}

#[test]
fn partitions_spread_over_dirs_and_metadata_is_written() {
    let a = tempdir().unwrap();
    let b = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf(), b.path().to_path_buf()]).unwrap();
    for p in 0..4 {
        m.open_or_create("orders", p, TOPIC_ID, LogConfig::default())
            .unwrap();
    }
    let in_a = (0..4)
        .filter(|&p| m.dir_of("orders", p).unwrap().starts_with(a.path()))
        .count();
    assert_eq!(in_a, 2);
    let dir = m.dir_of("orders", 3).unwrap();
    assert_eq!(dir.file_name().unwrap(), "orders-3");
    let meta = std::fs::read_to_string(dir.join("partition.metadata")).unwrap();
    assert_eq!(
        meta,
        format!("version: 0\ntopic_id: {}\n", topic_id_string(TOPIC_ID))
    );
    assert!(a.path().join("meta.properties").exists());
    // Idempotent: the same handle.
    let h1 = m
        .open_or_create("orders", 1, TOPIC_ID, LogConfig::default())
        .unwrap();
    assert!(std::sync::Arc::ptr_eq(&h1, &m.get("orders", 1).unwrap()));
    assert!(m.get("orders", 9).is_none());
}

#[test]
fn a_directory_with_partitions_and_no_marker_was_not_shut_down_cleanly() {
    let a = tempdir().unwrap();
    let fresh = a.path().join("new");
    assert!(
        crate::log::shut_down_cleanly(&fresh).unwrap(),
        "nothing to lose yet"
    );
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    m.open_or_create("t", 0, TOPIC_ID, small_config()).unwrap();
    assert!(
        !crate::log::shut_down_cleanly(a.path()).unwrap(),
        "running (or killed): no marker"
    );
    m.shutdown().unwrap();
    assert!(crate::log::shut_down_cleanly(a.path()).unwrap());
}

#[test]
fn clean_shutdown_and_restart_keep_offsets_and_checkpoints() {
    let a = tempdir().unwrap();
    let dirs = vec![a.path().to_path_buf()];
    {
        let m = LogManager::new(dirs.clone()).unwrap();
        let h = m.open_or_create("t", 0, TOPIC_ID, small_config()).unwrap();
        let mut log = h.write();
        for _ in 0..30 {
            log.append_as_leader(batch(2, 60, NOW), 0, NOW).unwrap();
        }
        log.set_high_watermark(50);
        log.delete_records_before(10).unwrap();
        drop(log);
        m.shutdown().unwrap();
        assert!(a.path().join(".kafka_cleanshutdown").exists());
        let hw = read_offsets(&a.path().join("replication-offset-checkpoint")).unwrap();
        assert_eq!(hw.get(&("t".to_owned(), 0)), Some(&50));
        let rp = read_offsets(&a.path().join("recovery-point-offset-checkpoint")).unwrap();
        assert_eq!(rp.get(&("t".to_owned(), 0)), Some(&60));
        let text = std::fs::read_to_string(a.path().join("log-start-offset-checkpoint")).unwrap();
        assert_eq!(text, "0\n1\nt 0 10\n");
    }
    let m = LogManager::new(dirs).unwrap();
    assert!(
        !a.path().join(".kafka_cleanshutdown").exists(),
        "the marker goes at start"
    );
    // A checkpoint before the partition is opened keeps its offsets.
    m.checkpoint().unwrap();
    let h = m.open_or_create("t", 0, TOPIC_ID, small_config()).unwrap();
    let mut log = h.write();
    assert_eq!(
        (
            log.log_start_offset(),
            log.high_watermark(),
            log.log_end_offset()
        ),
        (10, 50, 60)
    );
    assert_eq!(
        log.append_as_leader(batch(1, 1, NOW), 0, NOW)
            .unwrap()
            .base_offset,
        60
    );
}

#[test]
fn unclean_restart_recovers_from_the_checkpointed_recovery_point() {
    let a = tempdir().unwrap();
    let dirs = vec![a.path().to_path_buf()];
    {
        let m = LogManager::new(dirs.clone()).unwrap();
        let h = m.open_or_create("t", 0, TOPIC_ID, small_config()).unwrap();
        for _ in 0..30 {
            h.write()
                .append_as_leader(batch(2, 60, NOW), 0, NOW)
                .unwrap();
        }
        h.write().flush().unwrap();
        m.checkpoint().unwrap();
        // No shutdown: a crash.
    }
    let m = LogManager::new(dirs).unwrap();
    let h = m.open_or_create("t", 0, TOPIC_ID, small_config()).unwrap();
    assert_eq!(h.read().log_end_offset(), 60);
    assert_eq!(read_all(&h.read()).len(), 30);
}

#[test]
fn a_directory_with_another_topic_id_is_refused() {
    let a = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    m.open_or_create("t", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    m.shutdown().unwrap();
    drop(m);
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    assert!(m
        .open_or_create("t", 0, [7; 16], LogConfig::default())
        .is_err());
}

#[test]
fn delete_removes_the_partition_and_keeps_open_files_readable() {
    let a = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    let h = m
        .open_or_create("t", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    h.write()
        .append_as_leader(batch(2, 10, NOW), 0, NOW)
        .unwrap();
    let slice = h.read().read(0, 1000, i64::MAX, true).unwrap();
    m.delete("t", 0).unwrap();
    assert!(!a.path().join("t-0").exists());
    assert!(m.get("t", 0).is_none());
    assert!(m.dir_of("t", 0).is_none());
    assert_eq!(
        batches_in(&slice).len(),
        1,
        "the unlinked segment is still readable"
    );
    assert!(h
        .write()
        .append_as_leader(batch(1, 1, NOW), 0, NOW)
        .is_err());
    m.checkpoint().unwrap();
    assert!(
        read_offsets(&a.path().join("replication-offset-checkpoint"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn tick_applies_retention_and_rolls() {
    let a = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    let config = LogConfig {
        retention_ms: 1000,
        segment_ms: 1000,
        ..small_config()
    };
    let h = m.open_or_create("t", 0, TOPIC_ID, config).unwrap();
    for _ in 0..30 {
        h.write()
            .append_as_leader(batch(2, 60, NOW), 0, NOW)
            .unwrap();
    }
    h.write().set_high_watermark(60);
    let segments = h.read().segment_count();
    let deleted = m.tick(NOW + 5000).unwrap();
    // The aged active segment rolls first, so every segment that held data goes.
    assert_eq!(deleted, segments);
    assert_eq!(
        h.read().log_start_offset(),
        h.read().segment_base_offsets()[0]
    );
}

#[test]
fn node_id_is_recorded_and_checked() {
    let a = tempdir().unwrap();
    LogManager::with_node_id(vec![a.path().to_path_buf()], 3).unwrap();
    let props = std::fs::read_to_string(a.path().join("meta.properties")).unwrap();
    assert!(
        props.contains("version=1") && props.contains("node.id=3"),
        "{props}"
    );
    assert!(LogManager::with_node_id(vec![a.path().to_path_buf()], 4).is_err());
    assert!(LogManager::new(vec![a.path().to_path_buf()]).is_ok());
}

#[test]
fn no_clean_marker_while_a_partition_from_an_unclean_stop_was_never_opened() {
    let a = tempdir().unwrap();
    let dirs = vec![a.path().to_path_buf()];
    {
        let m = LogManager::new(dirs.clone()).unwrap();
        m.open_or_create("t", 0, TOPIC_ID, LogConfig::default())
            .unwrap();
        m.open_or_create("t", 1, TOPIC_ID, LogConfig::default())
            .unwrap();
        // Crash: no shutdown.
    }
    let m = LogManager::new(dirs.clone()).unwrap();
    m.open_or_create("t", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    m.shutdown().unwrap();
    assert!(!a.path().join(".kafka_cleanshutdown").exists());
    drop(m);
    let m = LogManager::new(dirs).unwrap();
    m.open_or_create("t", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    m.open_or_create("t", 1, TOPIC_ID, LogConfig::default())
        .unwrap();
    m.shutdown().unwrap();
    assert!(a.path().join(".kafka_cleanshutdown").exists());
}

#[test]
fn tick_flushes_by_flush_ms() {
    let a = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    let config = LogConfig {
        flush_ms: 1000,
        ..LogConfig::default()
    };
    let h = m.open_or_create("t", 0, TOPIC_ID, config).unwrap();
    h.write()
        .append_as_leader(batch(2, 10, NOW), 0, NOW)
        .unwrap();
    let now = crate::log::now_ms();
    m.tick(now).unwrap();
    assert_eq!(h.read().recovery_point(), 0, "not due yet");
    m.tick(now + 2000).unwrap();
    assert_eq!(h.read().recovery_point(), 2);
}

#[test]
fn a_flush_that_raced_a_truncation_does_not_move_the_recovery_point() {
    let a = tempdir().unwrap();
    let mut log = open(a.path(), LogConfig::default());
    for _ in 0..3 {
        log.append_as_leader(batch(2, 10, NOW), 0, NOW).unwrap();
    }
    let plan = log.flush_plan();
    log.truncate_to(2).unwrap();
    log.append_as_leader(batch(4, 10, NOW), 0, NOW).unwrap();
    plan.execute().unwrap();
    log.complete_flush(&plan);
    assert_eq!(log.recovery_point(), 0);
    log.flush().unwrap();
    assert_eq!(log.recovery_point(), 6);
}

#[test]
fn names_that_are_not_kafka_topic_names_are_refused() {
    let a = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    for bad in ["", "..", "a/b", "../x", "sp ace"] {
        assert!(
            m.open_or_create(bad, 0, TOPIC_ID, LogConfig::default())
                .is_err(),
            "{bad:?}"
        );
    }
    assert!(m
        .open_or_create("ok", -1, TOPIC_ID, LogConfig::default())
        .is_err());
    assert!(m
        .open_or_create("__consumer_offsets", 0, TOPIC_ID, LogConfig::default())
        .is_ok());
}

/// Readers copy their slices outside the lock while a writer appends and rolls: every slice
/// still holds whole, valid batches.
#[test]
fn slices_read_outside_the_lock_stay_whole_while_appends_continue() {
    let a = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    let h = m.open_or_create("t", 0, TOPIC_ID, small_config()).unwrap();
    h.write()
        .append_as_leader(batch(1, 10, NOW), 0, NOW)
        .unwrap();
    std::thread::scope(|s| {
        let writer = h.clone();
        s.spawn(move || {
            for i in 0..1500 {
                writer
                    .write()
                    .append_as_leader(batch(1 + i % 4, 40, NOW), 0, NOW)
                    .unwrap();
            }
        });
        for r in 0..2 {
            let reader = h.clone();
            s.spawn(move || {
                for i in 0..3000i64 {
                    let slice = {
                        let log = reader.read();
                        let offset = (i * 7919 + r) % log.log_end_offset();
                        log.read(offset, 700, i64::MAX, true).unwrap()
                    };
                    assert!(!batches_in(&slice).is_empty());
                }
            });
        }
    });
}

#[test]
fn tick_expires_idle_producers() {
    let a = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    m.set_producer_id_expiration_ms(1000);
    let h = m
        .open_or_create("t", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    let idem = |seq: i32| {
        let b = BatchBuilder::new(Codec::None)
            .producer(3, 0, seq)
            .record(Record::new(None, Some(b"x"), NOW));
        BytesMut::from(&b.build()[..])
    };
    h.write().append_as_leader(idem(0), 0, NOW).unwrap();
    m.tick(NOW + 500).unwrap();
    assert!(
        h.write()
            .append_as_leader(idem(0), 0, NOW)
            .unwrap()
            .duplicate,
        "still known"
    );
    m.tick(NOW + 5000).unwrap();
    // Forgotten: the retry is appended again, as Kafka does after expiration.
    assert!(
        !h.write()
            .append_as_leader(idem(0), 0, NOW)
            .unwrap()
            .duplicate
    );
}

#[test]
fn many_partitions_open_in_parallel_and_one_partition_opens_once() {
    let a = tempdir().unwrap();
    let b = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf(), b.path().to_path_buf()]).unwrap();
    m.set_threads_per_dir(4);
    // Every partition asked for twice, so two threads race to open most of them.
    let requests: Vec<i32> = (0..200).chain(0..200).collect();
    let handles = m.parallel(&requests, |&p| {
        m.open_or_create("wide", p, TOPIC_ID, LogConfig::default())
            .unwrap()
    });
    for (i, &p) in requests.iter().enumerate() {
        let same = &handles[(i + 200) % requests.len()];
        assert!(std::sync::Arc::ptr_eq(&handles[i], same), "partition {p}");
        assert!(std::sync::Arc::ptr_eq(
            &handles[i],
            &m.get("wide", p).unwrap()
        ));
    }
    let in_a = (0..200)
        .filter(|&p| m.dir_of("wide", p).unwrap().starts_with(a.path()))
        .count();
    assert_eq!(in_a, 100, "placement balances the directories");
    m.shutdown().unwrap();
    assert!(m
        .open_or_create("wide", 500, TOPIC_ID, LogConfig::default())
        .is_err());
}

#[test]
fn closing_idle_logs_writes_no_snapshot_and_busy_ones_one() {
    let a = tempdir().unwrap();
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    m.open_or_create("idle", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    let busy = m
        .open_or_create("busy", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    busy.write()
        .append_as_leader(batch(2, 10, NOW), 0, NOW)
        .unwrap();
    m.shutdown().unwrap();
    let snapshots = |t: &str| {
        std::fs::read_dir(a.path().join(format!("{t}-0")))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".snapshot")
            })
            .count()
    };
    assert_eq!(snapshots("idle"), 0);
    assert_eq!(snapshots("busy"), 1);
    // A clean restart finds both logs whole.
    drop(m);
    let m = LogManager::new(vec![a.path().to_path_buf()]).unwrap();
    let busy = m
        .open_or_create("busy", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    assert_eq!(busy.read().log_end_offset(), 2);
}

#[test]
fn a_directory_is_owned_by_one_manager_at_a_time() {
    let a = tempdir().unwrap();
    let dirs = vec![a.path().to_path_buf()];
    let first = LogManager::new(dirs.clone()).unwrap();
    let Err(refused) = LogManager::new(dirs.clone()) else {
        panic!("a second manager opened a locked directory");
    };
    assert!(
        refused
            .to_string()
            .contains("Failed to acquire lock on file .lock"),
        "{refused}"
    );
    // It gave up before touching the directory: the clean-shutdown marker of the first
    // manager's stop is still there for the first manager's next start.
    first.shutdown().unwrap();
    assert!(LogManager::new(dirs.clone()).is_err());
    assert!(a.path().join(".kafka_cleanshutdown").exists());
    drop(first);
    LogManager::new(dirs).unwrap();
    assert!(a.path().join(".lock").exists());
}

/// Kafka's LogDirFailureChannel: after an I/O error in one directory (simulated: a real one
/// is the cluster test's full tmpfs) its logs refuse appends and reads, new partitions go to
/// the other directory, nothing is written there at shutdown, and a restart brings it back.
#[test]
fn a_failed_dir_goes_offline_until_restart_and_the_other_keeps_serving() {
    let a = tempdir().unwrap();
    let b = tempdir().unwrap();
    let dirs = vec![a.path().to_path_buf(), b.path().to_path_buf()];
    {
        let m = LogManager::new(dirs.clone()).unwrap();
        let log = m
            .open_or_create("t", 0, TOPIC_ID, LogConfig::default())
            .unwrap();
        assert!(m.dir_of("t", 0).unwrap().starts_with(a.path()));
        log.write()
            .append_as_leader(batch(3, 10, NOW), 0, NOW)
            .unwrap();
        let failed = log
            .read()
            .io_failed(std::io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(failed, ErrorCode::KafkaStorageError);
        assert_eq!(m.offline_dirs(), vec![a.path().to_path_buf()]);
        assert_eq!(
            log.write().append_as_leader(batch(1, 10, NOW), 0, NOW),
            Err(ErrorCode::KafkaStorageError)
        );
        assert_eq!(log.read().log_end_offset(), 3, "nothing appended");
        assert!(matches!(
            log.read().read(0, 1 << 20, 3, true),
            Err(ErrorCode::KafkaStorageError)
        ));
        // A new partition goes to the directory still online; the other one serves.
        let other = m
            .open_or_create("t", 1, TOPIC_ID, LogConfig::default())
            .unwrap();
        assert!(m.dir_of("t", 1).unwrap().starts_with(b.path()));
        other
            .write()
            .append_as_leader(batch(2, 10, NOW), 0, NOW)
            .unwrap();
        m.checkpoint().unwrap();
        m.shutdown().unwrap();
    }
    assert!(!a.path().join(CLEAN_SHUTDOWN_FILE).exists());
    assert!(b.path().join(CLEAN_SHUTDOWN_FILE).exists());
    // The restart brings the directory back: recovered, with what was written.
    let m = LogManager::new(dirs).unwrap();
    assert!(m.offline_dirs().is_empty());
    let log = m
        .open_or_create("t", 0, TOPIC_ID, LogConfig::default())
        .unwrap();
    assert_eq!(log.read().log_end_offset(), 3);
    log.write()
        .append_as_leader(batch(1, 10, NOW), 0, NOW)
        .unwrap();
}

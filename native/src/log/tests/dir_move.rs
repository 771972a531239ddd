//! Moving a log between log directories while it takes appends (AlterReplicaLogDirs).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tempfile::{tempdir, TempDir};

use super::*;
use crate::error::ErrorCode;
use crate::log::manager::LogHandle;
use crate::log::LogManager;

const TOPIC_ID: [u8; 16] = [7; 16];

struct Dirs {
    a: TempDir,
    b: TempDir,
}

impl Dirs {
    fn new() -> Dirs {
        Dirs {
            a: tempdir().unwrap(),
            b: tempdir().unwrap(),
        }
    }
    fn manager(&self) -> Arc<LogManager> {
        let m = Arc::new(
            LogManager::new(vec![
                self.a.path().to_path_buf(),
                self.b.path().to_path_buf(),
            ])
            .unwrap(),
        );
        m.start_mover();
        m
    }
}

/// Opens orders-0 (in the first directory, the emptier one) with `batches` batches of epoch 3.
fn opened(m: &LogManager, batches: usize) -> LogHandle {
    let handle = m
        .open_or_create("orders", 0, TOPIC_ID, small_config())
        .unwrap();
    for _ in 0..batches {
        append(&handle, 3);
    }
    handle
}

fn append(handle: &LogHandle, epoch: i32) -> i64 {
    let mut log = handle.write();
    let appended = log.append_as_leader(batch(4, 40, NOW), epoch, NOW).unwrap();
    let end = log.log_end_offset();
    log.set_high_watermark(end);
    appended.base_offset
}

/// Until no future is left and the replaced directories in `source` are deleted (after the
/// swap, without the lock).
fn wait_moved(m: &LogManager, source: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !m.future_logs().is_empty() || !entries(source).is_empty() {
        assert!(
            Instant::now() < deadline,
            "still moving: {:?}",
            m.future_logs()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Everything under `dir` besides the directory's own files: partition, future and doomed
/// directories.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap()
}

#[test]
fn a_log_moves_while_it_takes_appends_and_keeps_its_handle() {
    let dirs = Dirs::new();
    let m = dirs.manager();
    let handle = opened(&m, 200);
    let before = read_all(&handle.read());
    assert!(
        handle.read().segment_count() > 3,
        "several segments to copy"
    );
    // Slow enough that appends come in while it copies.
    m.set_alter_log_dirs_rate(Some(100_000));
    assert_eq!(m.alter_dir("orders", 0, &absolute(dirs.b.path())), Ok(true));
    let mut appended = 0;
    while !m.future_logs().is_empty() && appended < 300 {
        append(&handle, 3);
        appended += 1;
    }
    assert!(appended > 10, "{appended}");
    wait_moved(&m, dirs.a.path());
    assert_eq!(
        m.dir_of("orders", 0).unwrap(),
        dirs.b.path().join("orders-0")
    );
    assert!(Arc::ptr_eq(&handle, &m.get("orders", 0).unwrap()));
    assert_eq!(entries(dirs.b.path()), ["orders-0"]);
    let log = handle.read();
    assert_eq!(log.dir, dirs.b.path().join("orders-0"));
    let after = read_all(&log);
    assert_eq!(after[..before.len()], before[..]);
    assert_eq!(after.len(), before.len() + appended);
    assert_eq!(log.high_watermark(), log.log_end_offset());
    assert_eq!(log.latest_epoch(), Some(3));
    drop(log);
    // The moved log takes appends in its new place and survives a restart there.
    let next = append(&handle, 4);
    assert_eq!(handle.read().latest_epoch(), Some(4));
    m.shutdown().unwrap();
    drop(m);
    let m = dirs.manager();
    let handle = m
        .open_or_create("orders", 0, TOPIC_ID, small_config())
        .unwrap();
    let reopened = read_all(&handle.read());
    assert_eq!(reopened.last().unwrap().0, next);
    assert_eq!(reopened.len(), after.len() + 1);
    assert_eq!(
        m.dir_of("orders", 0).unwrap(),
        dirs.b.path().join("orders-0")
    );
}

#[test]
fn refusals_and_a_partition_not_hosted_yet() {
    let dirs = Dirs::new();
    let m = dirs.manager();
    let elsewhere = tempdir().unwrap();
    assert_eq!(
        m.alter_dir("orders", 0, elsewhere.path()).unwrap_err().0,
        ErrorCode::LogDirNotFound
    );
    let long = "t".repeat(249);
    assert_eq!(
        m.alter_dir(&long, 0, dirs.b.path()).unwrap_err().0,
        ErrorCode::InvalidTopicException
    );
    // Not hosted: remembered, and the partition is created there (not in the emptier dir).
    assert_eq!(
        m.alter_dir("orders", 0, &absolute(dirs.b.path())),
        Ok(false)
    );
    opened(&m, 1);
    assert_eq!(
        m.dir_of("orders", 0).unwrap(),
        dirs.b.path().join("orders-0")
    );
    // Already there: nothing to move.
    assert_eq!(m.alter_dir("orders", 0, &absolute(dirs.b.path())), Ok(true));
    assert!(m.future_logs().is_empty());
}

#[test]
fn a_move_back_to_the_current_dir_cancels_it_and_a_delete_drops_it() {
    let dirs = Dirs::new();
    let m = dirs.manager();
    m.set_alter_log_dirs_rate(Some(1)); // one batch, then a long pause
    let handle = opened(&m, 20);
    assert_eq!(m.alter_dir("orders", 0, &absolute(dirs.b.path())), Ok(true));
    let moving = m.future_logs();
    assert_eq!(moving.len(), 1);
    assert_eq!(moving[0].log_dir, dirs.b.path());
    assert!(entries(dirs.b.path())[0].ends_with("-future"));
    assert_eq!(m.alter_dir("orders", 0, &absolute(dirs.a.path())), Ok(true));
    assert!(m.future_logs().is_empty());
    assert!(entries(dirs.b.path()).is_empty());
    assert_eq!(handle.read().dir, dirs.a.path().join("orders-0"));
    assert_eq!(m.alter_dir("orders", 0, &absolute(dirs.b.path())), Ok(true));
    m.delete("orders", 0).unwrap();
    assert!(m.future_logs().is_empty());
    assert!(entries(dirs.b.path()).is_empty());
}

#[test]
fn a_move_stopped_by_a_shutdown_resumes_when_its_partition_opens() {
    let dirs = Dirs::new();
    let m = dirs.manager();
    m.set_alter_log_dirs_rate(Some(1));
    let handle = opened(&m, 30);
    let before = read_all(&handle.read());
    m.alter_dir("orders", 0, &absolute(dirs.b.path())).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while m.future_logs()[0].size_bytes == 0 {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(5));
    }
    m.shutdown().unwrap();
    drop((handle, m));
    assert!(entries(dirs.b.path())[0].ends_with("-future"));
    let m = dirs.manager();
    let handle = m
        .open_or_create("orders", 0, TOPIC_ID, small_config())
        .unwrap();
    wait_moved(&m, dirs.a.path());
    assert_eq!(handle.read().dir, dirs.b.path().join("orders-0"));
    assert_eq!(read_all(&handle.read()), before);
}

#[test]
fn a_truncated_current_log_is_followed_by_epoch() {
    let dirs = Dirs::new();
    let m = dirs.manager();
    m.set_alter_log_dirs_rate(Some(1));
    let handle = opened(&m, 10);
    m.alter_dir("orders", 0, &absolute(dirs.b.path())).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while m.future_logs()[0].offset_lag == handle.read().log_end_offset() {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(5));
    }
    // Copied: the first batch (offsets 0-3). The current log loses everything and takes a
    // new leader's batches at epoch 5: the future must cut its stale copy, not keep it.
    {
        let mut log = handle.write();
        log.truncate_to(0).unwrap();
        log.set_high_watermark(0);
    }
    for _ in 0..5 {
        append(&handle, 5);
    }
    let expected = read_all(&handle.read());
    m.set_alter_log_dirs_rate(None);
    wait_moved(&m, dirs.a.path());
    let log = handle.read();
    assert_eq!(log.dir, dirs.b.path().join("orders-0"));
    assert_eq!(read_all(&log), expected);
    assert_eq!(log.epoch_entries(), vec![(5, 0)]);
}

#[test]
fn a_start_keeps_the_promoted_copy_of_a_partition_found_twice() {
    let dirs = Dirs::new();
    {
        let m = dirs.manager();
        opened(&m, 5);
        m.shutdown().unwrap();
    }
    let old = dirs.a.path().join("orders-0");
    let copy = dirs.b.path().join("orders-0");
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(&old).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    // Both copies, neither marked: the operator must choose, as with Kafka.
    let refused = LogManager::new(vec![dirs.a.path().into(), dirs.b.path().into()]).unwrap_err();
    assert!(
        refused.to_string().contains("Duplicate log directories"),
        "{refused}"
    );
    std::fs::write(copy.join(".ferrolog-promoted"), b"").unwrap();
    let m = dirs.manager();
    assert!(!old.exists());
    assert!(!copy.join(".ferrolog-promoted").exists());
    let handle = m
        .open_or_create("orders", 0, TOPIC_ID, small_config())
        .unwrap();
    assert_eq!(handle.read().dir, copy);
    assert_eq!(read_all(&handle.read()).len(), 5);
}

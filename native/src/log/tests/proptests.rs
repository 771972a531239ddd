use proptest::prelude::*;
use tempfile::tempdir;

use super::*;

#[derive(Debug, Clone)]
enum Op {
    Append { records: usize, value_len: usize },
    Roll,
    Reopen { clean: bool },
    Truncate { back: i64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1usize..6, 0usize..300).prop_map(|(records, value_len)| Op::Append { records, value_len }),
        1 => Just(Op::Roll),
        1 => any::<bool>().prop_map(|clean| Op::Reopen { clean }),
        1 => (0i64..12).prop_map(|back| Op::Truncate { back }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn appends_rolls_reopens_and_truncations_keep_reads_consistent(
        ops in proptest::collection::vec(op(), 1..40),
        interval in 1u32..600,
    ) {
        let dir = tempdir().unwrap();
        let config = LogConfig { segment_bytes: 1500, index_interval_bytes: interval, ..LogConfig::default() };
        let mut log = open(dir.path(), config.clone());
        let mut model: Vec<(i64, i64)> = Vec::new();
        for op in ops {
            match op {
                Op::Append { records, value_len } => {
                    let a = log.append_as_leader(batch(records, value_len, NOW), 0, NOW).unwrap();
                    prop_assert_eq!(a.base_offset, model.last().map_or(0, |m| m.1 + 1));
                    model.push((a.base_offset, a.last_offset));
                }
                Op::Roll => log.roll().unwrap(),
                Op::Reopen { clean } => {
                    if clean {
                        log.close().unwrap();
                    }
                    drop(log);
                    let rp = if clean { i64::MAX } else { 0 };
                    log = Log::open(dir.path(), config.clone(), rp, 0, 0).unwrap();
                }
                Op::Truncate { back } => {
                    let target = (log.log_end_offset() - back).max(0);
                    log.truncate_to(target).unwrap();
                    // Whole batches go: everything from the batch holding the target on.
                    model.retain(|&(_, last)| last < target);
                }
            }
            prop_assert_eq!(log.log_end_offset(), model.last().map_or(0, |m| m.1 + 1));
            prop_assert_eq!(read_all(&log), model.clone());
            prop_assert_eq!(log.size_bytes(), log.read(0, u32::MAX, i64::MAX, true).map(|_| log.size_bytes()).unwrap());
        }
        for &(base, last) in &model {
            let h = batches_in(&log.read(last, 1, i64::MAX, true).unwrap())[0];
            prop_assert_eq!(h.base_offset, base);
        }
    }
}

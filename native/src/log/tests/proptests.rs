use proptest::prelude::*;
use tempfile::tempdir;

use super::*;

#[derive(Debug, Clone)]
enum Op {
    Append {
        records: usize,
        value_len: usize,
    },
    Roll,
    Reopen {
        clean: bool,
    },
    Truncate {
        back: i64,
    },
    /// A crash that tears the last `cut` bytes off the newest segment file.
    Crash {
        cut: u64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1usize..6, 0usize..300).prop_map(|(records, value_len)| Op::Append { records, value_len }),
        1 => Just(Op::Roll),
        1 => any::<bool>().prop_map(|clean| Op::Reopen { clean }),
        1 => (0i64..12).prop_map(|back| Op::Truncate { back }),
        1 => (0u64..200).prop_map(|cut| Op::Crash { cut }),
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
        let config = LogConfig {
            segment_bytes: 1500,
            segment_index_bytes: 96,
            index_interval_bytes: interval,
            ..LogConfig::default()
        };
        let mut log = open(dir.path(), config.clone());
        let mut model: Vec<(i64, i64)> = Vec::new();
        let mut sizes: std::collections::HashMap<i64, u64> = std::collections::HashMap::new();
        for op in ops {
            match op {
                Op::Append { records, value_len } => {
                    let before = log.size_bytes();
                    let a = log.append_as_leader(batch(records, value_len, NOW), 0, NOW).unwrap();
                    sizes.insert(a.base_offset, log.size_bytes() - before);
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
                Op::Crash { cut } => {
                    drop(log);
                    let newest = std::fs::read_dir(dir.path())
                        .unwrap()
                        .map(|e| e.unwrap().path())
                        .filter(|p| p.extension().is_some_and(|e| e == "log"))
                        .max()
                        .unwrap();
                    let len = std::fs::metadata(&newest).unwrap().len();
                    let kept = len - cut.min(len);
                    std::fs::OpenOptions::new().write(true).open(&newest).unwrap().set_len(kept).unwrap();
                    let base: i64 = newest.file_stem().unwrap().to_str().unwrap().parse().unwrap();
                    // The batches of that segment that still fit whole survive, no others.
                    let mut end = 0u64;
                    let mut expected_leo = base;
                    for &(b, last) in model.iter().filter(|m| m.0 >= base) {
                        end += sizes[&b];
                        if end > kept {
                            break;
                        }
                        expected_leo = last + 1;
                    }
                    log = Log::open(dir.path(), config.clone(), 0, 0, 0).unwrap();
                    let leo = log.log_end_offset();
                    prop_assert_eq!(leo, expected_leo);
                    model.retain(|&(_, last)| last < leo);
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
            let on_disk: u64 = log.segment_base_offsets().iter().map(|b| std::fs::metadata(dir.path().join(format!("{b:020}.log"))).unwrap().len()).sum();
            prop_assert_eq!(log.size_bytes(), on_disk);
        }
        for &(base, last) in &model {
            let h = batches_in(&log.read(last, 1, i64::MAX, true).unwrap())[0];
            prop_assert_eq!(h.base_offset, base);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Any read returns whole batches, starting with the one holding the offset, consecutive,
    /// below max_offset, within max_bytes (or exactly one batch with min_one), and never
    /// nothing when a batch would fit.
    #[test]
    fn bounded_reads_honour_every_bound(
        batches in proptest::collection::vec((1usize..5, 0usize..400), 1..60),
        reads in proptest::collection::vec((any::<prop::sample::Index>(), 0u32..3000, any::<prop::sample::Index>(), any::<bool>()), 1..40),
        interval in 1u32..800,
    ) {
        let dir = tempdir().unwrap();
        let config = LogConfig { segment_bytes: 4000, index_interval_bytes: interval, ..LogConfig::default() };
        let mut log = open(dir.path(), config);
        let mut model = Vec::new();
        for (records, value_len) in batches {
            let before = log.size_bytes();
            let a = log.append_as_leader(batch(records, value_len, NOW), 0, NOW).unwrap();
            model.push((a.base_offset, a.last_offset, (log.size_bytes() - before) as u32));
        }
        let leo = log.log_end_offset();
        for (at, max_bytes, bound, min_one) in reads {
            let offset = at.index(leo as usize + 1) as i64;
            let max_offset = bound.index(leo as usize + 2) as i64;
            let slice = log.read(offset, max_bytes, max_offset, min_one).unwrap();
            let got = batches_in(&slice);
            prop_assert!(slice.length as usize == got.iter().map(|h| h.total_size()).sum::<usize>());
            let first = model.iter().position(|m| m.1 >= offset);
            let Some(first) = first else {
                prop_assert!(got.is_empty());
                continue;
            };
            for (i, h) in got.iter().enumerate() {
                prop_assert_eq!((h.base_offset, h.last_offset()), (model[first + i].0, model[first + i].1));
                prop_assert!(h.last_offset() < max_offset);
            }
            if got.len() > 1 || !min_one {
                prop_assert!(slice.length <= max_bytes);
            }
            let fits = model[first].1 < max_offset && (min_one || model[first].2 <= max_bytes);
            prop_assert_eq!(got.is_empty(), !fits);
        }
    }
}

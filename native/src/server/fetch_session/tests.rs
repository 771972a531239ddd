use std::sync::Arc;

use super::*;

fn key(topic: &str, partition: i32) -> PartitionKey {
    PartitionKey {
        topic: TopicRef::Name(Arc::from(topic)),
        partition,
    }
}

fn id_key(id: u8, partition: i32) -> PartitionKey {
    PartitionKey {
        topic: TopicRef::Id([id; 16]),
        partition,
    }
}

fn params(fetch_offset: i64) -> FetchParams {
    FetchParams {
        fetch_offset,
        log_start_offset: -1,
        max_bytes: 1 << 20,
        current_leader_epoch: 0,
        last_fetched_epoch: -1,
    }
}

fn outcome(high_watermark: i64) -> Outcome {
    Outcome {
        sent: Sent {
            high_watermark,
            last_stable_offset: high_watermark,
            log_start_offset: 0,
        },
        has_records: false,
        error: false,
        diverging: false,
    }
}

const FULL: FetchMetadata = FetchMetadata::INITIAL;

fn incremental(session_id: i32, epoch: i32) -> FetchMetadata {
    FetchMetadata { session_id, epoch }
}

/// A cache holding one session over `keys`, all told high watermark 10; returns its id.
fn with_session(cache: &mut FetchSessionCache, keys: &[PartitionKey], now: i64) -> i32 {
    let wanted: Vec<_> = keys.iter().map(|k| (k.clone(), params(10))).collect();
    assert_eq!(
        cache.new_context(12, FULL, &wanted, &[], now),
        Context::Full
    );
    let id = cache.create_session(
        now,
        false,
        false,
        wanted.into_iter().map(|(k, p)| (k, p, outcome(10))),
    );
    assert_ne!(id, INVALID_SESSION_ID);
    id
}

/// The keys an incremental context reads.
fn read_list(context: &Context) -> Vec<PartitionKey> {
    match context {
        Context::Incremental { partitions, .. } => {
            partitions.iter().map(|(k, _)| k.clone()).collect()
        }
        other => panic!("not incremental: {other:?}"),
    }
}

#[test]
fn incremental_requests_read_the_whole_session_and_answer_only_changes() {
    let mut cache = FetchSessionCache::new(10, EVICTION_MS, 1);
    let keys = [key("a", 0), key("a", 1), key("b", 0)];
    let id = with_session(&mut cache, &keys, 0);
    assert_eq!((cache.len(), cache.total_partitions()), (1, 3));

    // nothing sent: every session partition is read at its cached position
    let ctx = cache.new_context(12, incremental(id, 1), &[], &[], 5);
    assert_eq!(read_list(&ctx), keys.to_vec());
    let Context::Incremental {
        epoch, partitions, ..
    } = &ctx
    else {
        unreachable!()
    };
    assert_eq!(*epoch, 2);
    assert!(partitions.iter().all(|(_, p)| p.fetch_offset == 10));

    // a-0 has records, a-1 a new high watermark, b-0 nothing new
    let mut with_records = outcome(10);
    with_records.has_records = true;
    let outcomes = [with_records, outcome(11), outcome(10)];
    let answered = cache
        .finish_incremental(id, 2, keys.iter().zip(outcomes))
        .expect("same epoch");
    assert_eq!(answered, vec![true, true, false]);

    // the fetcher moves a-0 on; a-0 returned data, so it is read last from now on
    let ctx = cache.new_context(12, incremental(id, 2), &[(key("a", 0), params(15))], &[], 6);
    assert_eq!(read_list(&ctx), vec![key("a", 1), key("b", 0), key("a", 0)]);
    let Context::Incremental { partitions, .. } = &ctx else {
        unreachable!()
    };
    assert_eq!(partitions[2].1.fetch_offset, 15);
    // the high watermark told last time is remembered: no change, no answer
    let answered = cache
        .finish_incremental(
            id,
            3,
            [key("a", 1), key("b", 0), key("a", 0)].iter().zip([
                outcome(11),
                outcome(10),
                outcome(10),
            ]),
        )
        .expect("same epoch");
    assert_eq!(answered, vec![false, false, false]);
}

#[test]
fn errors_are_always_answered_and_answered_again_once_gone() {
    let mut cache = FetchSessionCache::new(10, EVICTION_MS, 1);
    let id = with_session(&mut cache, &[key("a", 0)], 0);
    let mut failed = outcome(-1);
    failed.error = true;
    for epoch in [1, 2] {
        cache.new_context(12, incremental(id, epoch), &[], &[], 1);
        let answered =
            cache.finish_incremental(id, epoch + 1, [(&key("a", 0), failed)].into_iter());
        assert_eq!(answered, Ok(vec![true]), "error at epoch {epoch}");
    }
    // the error cleared with the same offsets as before it: still answered once
    cache.new_context(12, incremental(id, 3), &[], &[], 1);
    let answered = cache.finish_incremental(id, 4, [(&key("a", 0), outcome(10))].into_iter());
    assert_eq!(answered, Ok(vec![true]));
    let mut diverging = outcome(10);
    diverging.diverging = true;
    cache.new_context(12, incremental(id, 4), &[], &[], 1);
    let answered = cache.finish_incremental(id, 5, [(&key("a", 0), diverging)].into_iter());
    assert_eq!(
        answered,
        Ok(vec![true]),
        "a diverging epoch is always answered"
    );
}

#[test]
fn a_moved_log_start_or_last_stable_offset_is_answered() {
    let mut cache = FetchSessionCache::new(10, EVICTION_MS, 1);
    let id = with_session(&mut cache, &[key("a", 0)], 0);
    let mut start = outcome(10);
    start.sent.log_start_offset = 4;
    let mut stable = outcome(10);
    stable.sent.last_stable_offset = 8;
    for (epoch, o) in [(1, start), (2, stable)] {
        cache.new_context(12, incremental(id, epoch), &[], &[], 1);
        let answered = cache.finish_incremental(id, epoch + 1, [(&key("a", 0), o)].into_iter());
        assert_eq!(answered, Ok(vec![true]));
    }
}

#[test]
fn forgotten_partitions_leave_and_an_emptied_session_closes() {
    let mut cache = FetchSessionCache::new(10, EVICTION_MS, 1);
    let id = with_session(&mut cache, &[key("a", 0), key("a", 1)], 0);
    let ctx = cache.new_context(
        12,
        incremental(id, 1),
        &[(key("c", 0), params(0))],
        &[key("a", 0)],
        1,
    );
    assert_eq!(read_list(&ctx), vec![key("a", 1), key("c", 0)]);
    assert_eq!(cache.total_partitions(), 2);
    let ctx = cache.new_context(12, incremental(id, 2), &[], &[key("a", 1), key("c", 0)], 1);
    assert_eq!(ctx, Context::Sessionless);
    assert!(cache.is_empty());
    assert_eq!(cache.total_partitions(), 0);
}

#[test]
fn session_errors_follow_kafka() {
    let mut cache = FetchSessionCache::new(10, EVICTION_MS, 1);
    let id = with_session(&mut cache, &[key("a", 0)], 0);
    assert_eq!(
        cache.new_context(12, incremental(id + 1, 1), &[], &[], 1),
        Context::Error(ErrorCode::FetchSessionIdNotFound)
    );
    assert_eq!(
        cache.new_context(12, incremental(id, 2), &[], &[], 1),
        Context::Error(ErrorCode::InvalidFetchSessionEpoch)
    );
    assert_eq!(
        cache.new_context(13, incremental(id, 1), &[], &[], 1),
        Context::Error(ErrorCode::FetchSessionTopicIdError),
        "a session of names cannot go on with topic ids"
    );
    // the errors changed nothing: epoch 1 is still the one expected
    assert!(matches!(
        cache.new_context(12, incremental(id, 1), &[], &[], 1),
        Context::Incremental { epoch: 2, .. }
    ));
    // the same epoch twice (a retried request) is refused
    assert_eq!(
        cache.new_context(12, incremental(id, 1), &[], &[], 1),
        Context::Error(ErrorCode::InvalidFetchSessionEpoch)
    );
}

#[test]
fn a_request_between_context_and_response_invalidates_the_response() {
    let mut cache = FetchSessionCache::new(10, EVICTION_MS, 1);
    let id = with_session(&mut cache, &[key("a", 0)], 0);
    cache.new_context(12, incremental(id, 1), &[], &[], 1);
    cache.new_context(12, incremental(id, 2), &[], &[], 1);
    let late = cache.finish_incremental(id, 2, [(&key("a", 0), outcome(10))].into_iter());
    assert_eq!(late, Err(Finish::EpochMoved));
    cache.remove(id);
    let gone = cache.finish_incremental(id, 3, [(&key("a", 0), outcome(10))].into_iter());
    assert_eq!(gone, Err(Finish::Gone));
}

#[test]
fn full_requests_replace_or_close_their_session() {
    let mut cache = FetchSessionCache::new(10, EVICTION_MS, 1);
    let id = with_session(&mut cache, &[key("a", 0)], 0);
    let replace = FetchMetadata {
        session_id: id,
        epoch: INITIAL_EPOCH,
    };
    assert_eq!(cache.new_context(12, replace, &[], &[], 1), Context::Full);
    assert!(cache.is_empty(), "the named session is closed");
    let id = with_session(&mut cache, &[key("a", 0)], 0);
    let close = FetchMetadata {
        session_id: id,
        epoch: FINAL_EPOCH,
    };
    assert_eq!(
        cache.new_context(12, close, &[], &[], 1),
        Context::Sessionless
    );
    assert!(cache.is_empty());
    assert_eq!(
        cache.new_context(12, incremental(id, 1), &[], &[], 1),
        Context::Error(ErrorCode::FetchSessionIdNotFound)
    );
}

#[test]
fn topic_id_sessions_key_by_id_and_refuse_names() {
    let mut cache = FetchSessionCache::new(10, EVICTION_MS, 1);
    let wanted = vec![(id_key(1, 0), params(0)), (id_key(2, 0), params(0))];
    assert_eq!(cache.new_context(13, FULL, &wanted, &[], 0), Context::Full);
    let id = cache.create_session(
        0,
        false,
        true,
        wanted.into_iter().map(|(k, p)| (k, p, outcome(0))),
    );
    // a topic recreated under a new id: the client forgets the old id and adds the new one
    let ctx = cache.new_context(
        15,
        incremental(id, 1),
        &[(id_key(3, 0), params(0))],
        &[id_key(1, 0)],
        1,
    );
    assert_eq!(read_list(&ctx), vec![id_key(2, 0), id_key(3, 0)]);
    assert_eq!(
        cache.new_context(12, incremental(id, 2), &[], &[], 1),
        Context::Error(ErrorCode::FetchSessionTopicIdError)
    );
}

#[test]
fn no_slots_means_no_sessions() {
    let mut cache = FetchSessionCache::new(0, EVICTION_MS, 1);
    let id = cache.create_session(
        0,
        true,
        false,
        [(key("a", 0), params(0), outcome(0))].into_iter(),
    );
    assert_eq!(id, INVALID_SESSION_ID);
    assert!(cache.is_empty());
}

/// `n` partitions of topic `t`.
fn partitions(t: &str, n: i32) -> Vec<(PartitionKey, FetchParams, Outcome)> {
    (0..n).map(|i| (key(t, i), params(0), outcome(0))).collect()
}

#[test]
fn eviction_prefers_stale_then_consumer_then_small_old_sessions() {
    let t0 = 1_000_000;
    let mut cache = FetchSessionCache::new(2, EVICTION_MS, 7);
    let small = cache.create_session(t0, false, false, partitions("s", 2).into_iter());
    let big = cache.create_session(t0, false, false, partitions("b", 50).into_iter());
    // full, both young: a consumer cannot evict anything, even with more partitions
    let young = t0 + 1000;
    assert_eq!(
        cache.create_session(young, false, false, partitions("c", 100).into_iter()),
        0
    );
    assert_eq!(cache.evictions(), 0);
    // a follower may evict a young consumer session: the smallest goes
    let follower = cache.create_session(young, true, false, partitions("f", 1).into_iter());
    assert_ne!(follower, 0);
    assert_eq!(cache.evictions(), 1);
    assert_eq!(
        cache.new_context(12, incremental(small, 1), &[], &[], young),
        Context::Error(ErrorCode::FetchSessionIdNotFound)
    );
    // now: `big` (consumer, 50) and `follower` (privileged, 1), both used at `young`.
    // Over two minutes after creation, with both in use, a bigger consumer session may
    // replace the older smaller consumer session once that has been touched after its youth.
    let later = t0 + EVICTION_MS + 10_000;
    assert!(matches!(
        cache.new_context(12, incremental(big, 1), &[], &[], later),
        Context::Incremental { .. }
    ));
    assert!(matches!(
        cache.new_context(12, incremental(follower, 1), &[], &[], later),
        Context::Incremental { .. }
    ));
    let soon = later + 1000;
    assert_eq!(
        cache.create_session(soon, false, false, partitions("c", 10).into_iter()),
        0,
        "smaller than every evictable session"
    );
    let bigger = cache.create_session(soon, false, false, partitions("c", 60).into_iter());
    assert_ne!(
        bigger, 0,
        "the consumer session of 50 gives way to one of 60"
    );
    assert_eq!(
        cache.new_context(12, incremental(big, 2), &[], &[], soon),
        Context::Error(ErrorCode::FetchSessionIdNotFound)
    );
    // left evictable by all: the old follower session of 1 partition, but a consumer session
    // ranks below any follower session whatever its size
    assert_eq!(
        cache.create_session(soon, false, false, partitions("d", 70).into_iter()),
        0
    );
    // stale: unused for over two minutes, anything goes first
    let stale = soon + EVICTION_MS + 1;
    assert!(matches!(
        cache.new_context(12, incremental(follower, 2), &[], &[], stale),
        Context::Incremental { .. }
    ));
    let fresh = cache.create_session(stale, false, false, partitions("e", 1).into_iter());
    assert_ne!(fresh, 0, "the stale consumer session is evicted");
    assert_eq!(cache.len(), 2);
    assert_eq!(cache.total_partitions(), 1 + 1);
}

#[test]
fn partition_maps_stay_compact_under_churn() {
    let mut map = PartitionMap::with_capacity(4);
    let entry = |k: PartitionKey| CachedPartition {
        key: k,
        params: params(0),
        sent: outcome(0).sent,
    };
    for i in 0..8 {
        map.insert(entry(key("t", i)));
    }
    for round in 0..1000 {
        map.move_to_end(&key("t", round % 8));
    }
    assert_eq!(map.len(), 8);
    let order: Vec<i32> = map.iter().map(|c| c.key.partition).collect();
    assert_eq!(
        order,
        vec![0, 1, 2, 3, 4, 5, 6, 7],
        "1000 moves: back in order"
    );
    map.move_to_end(&key("t", 2));
    let order: Vec<i32> = map.iter().map(|c| c.key.partition).collect();
    assert_eq!(order, vec![0, 1, 3, 4, 5, 6, 7, 2]);
    assert!(
        map.slots.len() <= 32,
        "holes are reclaimed: {}",
        map.slots.len()
    );
    assert!(map.remove(&key("t", 3)).is_some());
    assert!(map.get(&key("t", 3)).is_none());
    assert_eq!(map.get(&key("t", 2)).map(|c| c.key.partition), Some(2));
}

#[test]
fn a_cached_partition_stays_small() {
    // what an idle partition costs a session: its slot, plus about 48 bytes of index
    assert!(std::mem::size_of::<Option<CachedPartition>>() <= 96);
}

use super::*;

const LIMITS: Limits = Limits {
    lock_ms: 1000,
    delivery_limit: 3,
    max_in_flight: 100,
};
const A: u64 = 1;
const B: u64 = 2;

fn fresh() -> SharePartition {
    SharePartition::load(0, &[], LIMITS)
}

#[test]
fn new_records_are_acquired_a_batch_at_a_time() {
    let mut p = fresh();
    let got = p.acquire(A, 0, 500, &[(0, 9), (10, 19)]);
    assert_eq!(got, vec![(0, 9, 1), (10, 19, 1)]);
    assert_eq!(
        (p.start_offset(), p.end_offset(), p.acquired_count()),
        (0, 20, 20)
    );
    // Another member finds nothing new: the same batches are already handed out.
    assert!(p.acquire(B, 0, 500, &[(0, 9), (10, 19)]).is_empty());
}

#[test]
fn the_window_holds_at_most_max_in_flight_records() {
    let mut p = SharePartition::load(
        0,
        &[],
        Limits {
            max_in_flight: 15,
            ..LIMITS
        },
    );
    // Whole batches: the second starts inside the limit and is taken whole.
    let got = p.acquire(A, 0, 500, &[(0, 9), (10, 19), (20, 29)]);
    assert_eq!(got, vec![(0, 9, 1), (10, 19, 1)]);
    assert!(!p.can_acquire_new());
    p.acknowledge(A, 0, 9, AckType::Accept, 0).unwrap();
    assert!(p.can_acquire_new());
    assert_eq!(p.acquire(A, 0, 500, &[(20, 29)]), vec![(20, 29, 1)]);
}

#[test]
fn accepted_records_move_the_start_offset() {
    let mut p = fresh();
    p.acquire(A, 0, 500, &[(0, 9)]);
    p.acknowledge(A, 5, 9, AckType::Accept, 0).unwrap();
    assert_eq!(p.start_offset(), 0); // 0-4 are still in flight
    assert_eq!(p.delivery_complete(), 5);
    p.acknowledge(A, 0, 4, AckType::Accept, 0).unwrap();
    assert_eq!((p.start_offset(), p.state_batches()), (10, vec![]));
    assert_eq!(p.delivery_complete(), 0);
}

#[test]
fn only_the_holder_acknowledges_and_only_what_it_holds() {
    let mut p = fresh();
    p.acquire(A, 0, 500, &[(0, 9)]);
    assert_eq!(
        p.acknowledge(B, 0, 9, AckType::Accept, 0),
        Err(AckError::InvalidRecordState)
    );
    assert_eq!(
        p.acknowledge(A, 5, 12, AckType::Accept, 0),
        Err(AckError::InvalidRecordState)
    );
    p.acknowledge(A, 0, 0, AckType::Accept, 0).unwrap();
    // Twice is refused: it is no longer acquired.
    assert_eq!(
        p.acknowledge(A, 0, 0, AckType::Accept, 0),
        Err(AckError::InvalidRecordState)
    );
    assert_eq!(p.acquired_count(), 9);
}

#[test]
fn released_records_come_back_with_a_higher_delivery_count_until_archived() {
    let mut p = fresh();
    p.acquire(A, 0, 500, &[(0, 4)]);
    p.acknowledge(A, 2, 3, AckType::Release, 0).unwrap();
    assert_eq!(p.acquire(B, 0, 500, &[]), vec![(2, 3, 2)]);
    p.acknowledge(B, 2, 3, AckType::Release, 0).unwrap();
    assert_eq!(p.acquire(A, 0, 500, &[]), vec![(2, 3, 3)]);
    // Delivered 3 times, the limit: released once more, it is archived, never delivered.
    p.acknowledge(A, 2, 3, AckType::Release, 0).unwrap();
    assert!(p.acquire(B, 0, 500, &[]).is_empty());
    let archived = StateBatch {
        first_offset: 2,
        last_offset: 3,
        state: 4,
        delivery_count: 3,
    };
    assert!(p.state_batches().contains(&archived));
}

#[test]
fn rejected_records_are_archived_and_gaps_are_done() {
    let mut p = fresh();
    p.acquire(A, 0, 500, &[(0, 4)]);
    p.acknowledge(A, 0, 1, AckType::Gap, 0).unwrap();
    p.acknowledge(A, 2, 2, AckType::Reject, 0).unwrap();
    assert_eq!(p.start_offset(), 3);
    p.acknowledge(A, 3, 4, AckType::Accept, 0).unwrap();
    assert_eq!(p.start_offset(), 5);
}

#[test]
fn locks_time_out_and_renew_extends_them() {
    let mut p = fresh();
    p.acquire(A, 0, 500, &[(0, 4)]);
    p.acknowledge(A, 0, 1, AckType::Renew, 900).unwrap();
    assert_eq!(p.expire_locks(1000), 3); // 2-4 ran out at 1000; 0-1 were renewed to 1900
    assert_eq!(p.in_flight(), (5, 2));
    assert_eq!(p.acquire(B, 1000, 500, &[]), vec![(2, 4, 2)]);
    assert_eq!(p.expire_locks(1899), 0);
    assert_eq!(p.expire_locks(1900), 2);
    assert_eq!(p.acquire(B, 2000, 500, &[]), vec![(0, 1, 2)]);
}

#[test]
fn a_member_leaving_releases_what_it_held() {
    let mut p = fresh();
    p.acquire(A, 0, 500, &[(0, 4)]);
    p.acquire(B, 0, 500, &[(5, 9)]);
    assert!(p.release_member(A));
    assert_eq!(p.acquire(B, 0, 500, &[]), vec![(0, 4, 2)]);
    assert!(!p.release_member(A));
}

#[test]
fn max_records_bounds_what_is_acquired_again() {
    let mut p = fresh();
    p.acquire(A, 0, 500, &[(0, 9)]);
    p.acknowledge(A, 0, 9, AckType::Release, 0).unwrap();
    assert_eq!(p.acquire(B, 0, 4, &[]), vec![(0, 3, 2)]);
    assert_eq!(p.acquire(A, 0, 500, &[]), vec![(4, 9, 2)]);
}

#[test]
fn record_limit_mode_acquires_exactly_max_records_and_leaves_the_rest_available() {
    let batch = |base, last| LogBatch {
        base,
        last,
        aborted: false,
    };
    let mut p = fresh();
    // Batch-optimized: whole batches, past the limit.
    assert_eq!(
        p.acquire_within(
            A,
            0,
            3,
            AcquireMode::Batches { batch_size: 3 },
            9,
            &[batch(0, 9)]
        ),
        vec![(0, 9, 1)]
    );
    let mut p = fresh();
    assert_eq!(
        p.acquire_within(A, 0, 3, AcquireMode::Exact, 9, &[batch(0, 9)]),
        vec![(0, 2, 1)]
    );
    assert_eq!((p.end_offset(), p.acquired_count()), (10, 3));
    // The rest of the batch is in the window, never delivered: the next acquisition takes it
    // from there, first delivery.
    assert_eq!(p.fetch_offset(), 3);
    assert_eq!(
        p.acquire_within(B, 0, 4, AcquireMode::Exact, 9, &[batch(0, 9)]),
        vec![(3, 6, 1)]
    );
    let saved = p.state_batches();
    let reloaded = SharePartition::load(p.start_offset(), &saved, LIMITS);
    assert_eq!(reloaded.fetch_offset(), 0); // acquired ones come back available
}

#[test]
fn the_persisted_state_loads_back_with_acquired_records_available() {
    let mut p = fresh();
    p.acquire(A, 0, 500, &[(0, 9), (20, 29)]);
    p.acknowledge(A, 0, 2, AckType::Accept, 0).unwrap();
    p.acknowledge(A, 5, 5, AckType::Reject, 0).unwrap();
    let saved = p.state_batches();
    assert_eq!(saved.first().map(|b| b.first_offset), Some(3));
    let mut back = SharePartition::load(p.start_offset(), &saved, LIMITS);
    assert_eq!((back.start_offset(), back.end_offset()), (3, 30));
    // 3-4, 6-9 and 20-29 were in flight: delivered again, counted; 5 stays archived.
    let again = back.acquire(B, 0, 500, &[]);
    assert_eq!(again, vec![(3, 4, 2), (6, 9, 2), (20, 29, 2)]);
    // The hole 10-19 holds no record: once the rest is done the start passes it.
    for (first, last, _) in again {
        back.acknowledge(B, first, last, AckType::Accept, 0)
            .unwrap();
    }
    assert_eq!(back.start_offset(), 30);
}

#[test]
fn persisted_codes_map_to_states() {
    assert_eq!(RecordState::from_code(3), RecordState::Archived);
    assert_eq!(RecordState::from_code(1), RecordState::Available);
    assert_eq!(AckType::from_code(4), Some(AckType::Renew));
    assert_eq!(AckType::from_code(9), None);
}

#[test]
fn adjacent_batches_join_into_ranges_of_up_to_batch_size() {
    let batch = |base, last, aborted| LogBatch {
        base,
        last,
        aborted,
    };
    let mode = AcquireMode::Batches { batch_size: 4 };
    let log = [
        batch(0, 1, false),
        batch(2, 3, false),
        batch(4, 5, false), // starts 4 past the range's first: a new range
        batch(6, 6, true),  // aborted: archived, and the next range starts anew
        batch(7, 8, false),
        batch(10, 11, false), // not adjacent (offset 9 is not in the log): apart
    ];
    let mut p = fresh();
    let got = p.acquire_within(A, 0, 500, mode, 11, &log);
    assert_eq!(got, vec![(0, 3, 1), (4, 5, 1), (7, 8, 1), (10, 11, 1)]);
    assert_eq!(p.in_flight().1, 5); // four acquired ranges and the archived one
                                    // A joined range is acknowledged in parts as any other.
    p.acknowledge(A, 1, 2, AckType::Release, 0).unwrap();
    assert_eq!(p.acquire(B, 0, 500, &[]), vec![(1, 2, 2)]);
}

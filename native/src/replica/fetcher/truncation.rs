//! Where a follower truncates, given the leader's answer for an epoch (KIP-101, with KIP-279's
//! walk back): as Kafka's `AbstractFetcherThread.getOffsetTruncationState`.

/// The truncation offset and whether truncation is complete; when it is not, the follower asks
/// again for its (new, older) latest epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    pub offset: i64,
    pub complete: bool,
}

/// `leader_epoch`/`leader_end` is the leader's answer (the largest epoch it knows at or below
/// the one asked for, and where that epoch ends in its log; -1 when it knows none);
/// `own_end_for` looks the same epoch up in our own cache.
pub fn truncation_for(
    leader_epoch: i32,
    leader_end: i64,
    own_end_for: impl Fn(i32) -> Option<(i32, i64)>,
    log_end: i64,
    high_watermark: i64,
) -> Truncation {
    let done = |offset: i64| Truncation {
        offset: offset.min(log_end),
        complete: true,
    };
    if leader_end < 0 {
        // The leader has no epoch to compare with: nothing better than our high watermark.
        return done(high_watermark);
    }
    if leader_epoch < 0 {
        return done(leader_end);
    }
    match own_end_for(leader_epoch) {
        // Both logs have the epoch: they agree up to where the shorter one ends it. Our end
        // of it counts as much as the leader's: past it we hold a later epoch the leader
        // does not have there (written while we led), and keeping that suffix would both
        // diverge from the leader and have every fetch answered with the same diverging
        // epoch again, forever.
        Some((ours, our_end)) if ours == leader_epoch => done(leader_end.min(our_end)),
        // Our largest epoch at or below the leader's is an older one: our log agrees with the
        // leader's at most up to where that epoch ends for us; ask again from there.
        Some((_, our_end)) if our_end < log_end => Truncation {
            offset: our_end,
            complete: false,
        },
        _ => done(leader_end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An epoch cache as Kafka's lookup answers it.
    fn cache(entries: &'static [(i32, i64)], log_end: i64) -> impl Fn(i32) -> Option<(i32, i64)> {
        move |epoch| {
            let higher = entries.iter().position(|&(e, _)| e > epoch);
            match higher {
                None => entries.last().map(|&(e, _)| (e, log_end)),
                Some(0) => Some((epoch, entries[0].1)),
                Some(i) => Some((entries[i - 1].0, entries[i].1)),
            }
        }
    }

    #[test]
    fn same_epoch_truncates_to_the_shorter_end() {
        let ours = cache(&[(1, 0), (2, 5)], 9);
        let t = truncation_for(2, 7, ours, 9, 3);
        assert_eq!(
            t,
            Truncation {
                offset: 7,
                complete: true
            }
        );
        let ours = cache(&[(1, 0), (2, 5)], 6);
        let t = truncation_for(2, 7, ours, 6, 3);
        assert_eq!(
            t,
            Truncation {
                offset: 6,
                complete: true
            },
            "never past our own end"
        );
    }

    #[test]
    fn our_later_epoch_past_the_shared_one_goes() {
        // We have epochs 1 (0..5) and 3 (5..8): we led at epoch 3 and wrote what nobody
        // copied. The leader's epoch 1 runs to 7. Offsets 5 and 6 are epoch 3 here and
        // epoch 1 there: truncate to 5, where our epoch 1 ends, as Kafka does.
        let ours = cache(&[(1, 0), (3, 5)], 8);
        assert_eq!(
            truncation_for(1, 7, ours, 8, 2),
            Truncation {
                offset: 5,
                complete: true
            }
        );
    }

    #[test]
    fn walks_back_when_our_epoch_differs() {
        // We have epochs 1 (0..5) and 3 (5..8); the leader never had 3: its largest below is
        // 2, ending at 6. Our largest below 2 is 1, ending at 5: truncate there, ask again.
        let ours = cache(&[(1, 0), (3, 5)], 8);
        let t = truncation_for(2, 6, ours, 8, 0);
        assert_eq!(
            t,
            Truncation {
                offset: 5,
                complete: false
            }
        );
    }

    #[test]
    fn unknown_answers_fall_back() {
        let ours = cache(&[(1, 0)], 8);
        assert_eq!(truncation_for(-1, -1, &ours, 8, 4).offset, 4, "to our HW");
        assert_eq!(truncation_for(-1, 6, &ours, 8, 4).offset, 6);
        // we hold no epoch at or below the leader's: take its end
        let empty = |_| None;
        assert_eq!(
            truncation_for(1, 3, empty, 8, 0),
            Truncation {
                offset: 3,
                complete: true
            }
        );
    }
}

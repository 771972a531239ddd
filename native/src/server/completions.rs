//! The outcomes of the commands the control plane awaits without a thread of its own.
//!
//! A command that must wait (a coordinator's append, transaction markers: until acks=all is
//! met, up to the append timeout) appends at once and finishes on the runtime; its outcome is
//! left here under the caller's token and the eventfd wakes the Python event loop, which takes
//! the outcomes and resolves the future it keyed by that token. Before this, each such wait
//! held one of Python's few default worker threads for as long as it lasted.
//!
//! The same eventfd carries the transaction markers that WriteTxnMarkers (served natively)
//! committed in `__consumer_offsets`: each ends its producer's pending offset commits in the
//! group coordinator.

use std::io;

use parking_lot::Mutex;

use super::commands::CommandError;
use crate::control::EventFd;

/// A command's outcome: one result per item (an append has one, markers one per marker).
pub type Outcome = Vec<Result<i64, CommandError>>;
/// A marker committed in a partition of `__consumer_offsets`: (partition, producer id,
/// COMMIT else ABORT).
pub type MarkerWritten = (i32, i64, bool);

#[derive(Debug)]
pub struct Completions {
    done: Mutex<Vec<(u64, Outcome)>>,
    markers: Mutex<Vec<MarkerWritten>>,
    wakeup: EventFd,
}

impl Completions {
    pub fn new() -> io::Result<Completions> {
        Ok(Completions {
            done: Mutex::new(Vec::new()),
            markers: Mutex::new(Vec::new()),
            wakeup: EventFd::new()?,
        })
    }

    pub fn wakeup_fd(&self) -> i32 {
        self.wakeup.raw_fd()
    }

    pub fn complete(&self, token: u64, outcome: Outcome) {
        self.done.lock().push((token, outcome));
        self.wakeup.signal();
    }

    pub fn markers_written(&self, markers: Vec<MarkerWritten>) {
        self.markers.lock().extend(markers);
        self.wakeup.signal();
    }

    /// Every outcome and written marker so far. The eventfd is cleared first: one that lands
    /// after the clear either is taken here or signals again, so none waits for a later wake.
    pub fn take(&self) -> (Vec<(u64, Outcome)>, Vec<MarkerWritten>) {
        self.wakeup.clear();
        let done = std::mem::take(&mut *self.done.lock());
        (done, std::mem::take(&mut *self.markers.lock()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn outcomes_are_taken_once_and_the_fd_follows() {
        let c = Completions::new().unwrap();
        assert!(c.take().0.is_empty());
        c.complete(7, vec![Ok(42)]);
        c.complete(8, vec![Err(ErrorCode::NotLeaderOrFollower.into())]);
        assert!(c.wakeup.is_readable());
        let (taken, markers) = c.take();
        assert!(markers.is_empty());
        assert!(!c.wakeup.is_readable());
        assert_eq!(taken.len(), 2);
        assert_eq!((taken[0].0, taken[0].1[0].as_ref().ok()), (7, Some(&42)));
        assert!(matches!(
            taken[1].1[0],
            Err(CommandError::Kafka(ErrorCode::NotLeaderOrFollower, _))
        ));
        let (done, markers) = c.take();
        assert!(done.is_empty() && markers.is_empty());
        c.markers_written(vec![(3, 9, true)]);
        assert!(c.wakeup.is_readable());
        assert_eq!(c.take().1, vec![(3, 9, true)]);
    }
}

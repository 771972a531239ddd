//! Refused and failed requests in the broker's log, for operators: one line per kind of
//! failure (API and error, or API and refusal) at most every [`INTERVAL`], naming the client
//! id and address of the request that was logged and how many like it were not. Natively
//! served requests are logged here by the connection task; the control plane's answers and
//! refusals reach it through the `Server` methods, so both kinds read alike and share one
//! rate limit.
//!
//! A failed request is one whose response carries an error code other than NONE; a refused
//! one is one whose connection the broker closed instead of answering (unknown API or
//! version, a malformed body, a frame over `socket.request.max.bytes`, a failed acks=0
//! produce).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use kafka_protocol::messages::ApiKey;
use parking_lot::Mutex;

use crate::error::ErrorCode;

/// At most one line per kind of failure in this time; the next one says how many were not
/// logged meanwhile.
pub const INTERVAL: Duration = Duration::from_secs(10);

/// Which request: for the log line only.
#[derive(Debug, Clone, Copy)]
pub struct Requester<'a> {
    pub api_key: i16,
    pub api_version: i16,
    pub client_id: Option<&'a str>,
    pub peer: &'a str,
}

impl<'a> Requester<'a> {
    pub fn new(api_key: i16, api_version: i16, client_id: Option<&'a str>, peer: &'a str) -> Self {
        Requester {
            api_key,
            api_version,
            client_id,
            peer,
        }
    }
}

/// What a line is about: an API with an error code, or an API refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Failed(i16, i16),
    Refused(i16),
}

#[derive(Debug)]
struct Window {
    logged_at: Instant,
    suppressed: u64,
}

#[derive(Debug, Default)]
pub struct RequestLog {
    windows: Mutex<HashMap<Kind, Window>>,
}

/// Kafka's name of an API (`Produce`), or its key for one the protocol crate does not know.
pub fn api_name(api_key: i16) -> String {
    ApiKey::try_from(api_key).map_or_else(|_| api_key.to_string(), |k| format!("{k:?}"))
}

/// The header's client id (request header v1+), read only for a line about to be logged.
pub fn client_id(frame: &[u8]) -> Option<&str> {
    let len = i16::from_be_bytes([*frame.get(8)?, *frame.get(9)?]);
    let bytes = frame.get(10..10 + usize::try_from(len).ok()?)?;
    std::str::from_utf8(bytes).ok()
}

impl RequestLog {
    /// Whether a line of `kind` may be written now, and how many were held back before it.
    fn admit(&self, kind: Kind, now: Instant) -> Option<u64> {
        let mut windows = self.windows.lock();
        match windows.get_mut(&kind) {
            Some(w) if now.duration_since(w.logged_at) < INTERVAL => {
                w.suppressed += 1;
                None
            }
            Some(w) => {
                let held = std::mem::take(&mut w.suppressed);
                w.logged_at = now;
                Some(held)
            }
            None => {
                windows.insert(
                    kind,
                    Window {
                        logged_at: now,
                        suppressed: 0,
                    },
                );
                Some(0)
            }
        }
    }

    /// A response carried `errors` (`(code, count)`, NONE ignored): one line per error code
    /// not logged for this API within the interval.
    pub fn failed(&self, who: Requester<'_>, errors: &[(i16, u64)]) {
        for &(code, count) in errors.iter().filter(|(code, _)| *code != 0) {
            if let Some(held) = self.admit(Kind::Failed(who.api_key, code), Instant::now()) {
                log::info!(
                    "request failed api={} version={} client_id={} peer={} error={} \
                     partitions={count} similar_not_logged={held}",
                    api_name(who.api_key),
                    who.api_version,
                    who.client_id.unwrap_or("-"),
                    who.peer,
                    ErrorCode::kafka_name(code),
                );
            }
        }
    }

    /// The connection was closed instead of answering, for `reason`.
    pub fn refused(&self, who: Requester<'_>, reason: &str) {
        if let Some(held) = self.admit(Kind::Refused(who.api_key), Instant::now()) {
            log::info!(
                "request refused, connection closed api={} version={} client_id={} peer={} \
                 reason={reason:?} similar_not_logged={held}",
                api_name(who.api_key),
                who.api_version,
                who.client_id.unwrap_or("-"),
                who.peer,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_kind_per_interval_counts_the_rest() {
        let log = RequestLog::default();
        let t0 = Instant::now();
        let failed = Kind::Failed(0, 6);
        assert_eq!(log.admit(failed, t0), Some(0));
        assert_eq!(log.admit(failed, t0 + Duration::from_secs(1)), None);
        assert_eq!(log.admit(failed, t0 + Duration::from_secs(2)), None);
        // Another kind has its own window.
        assert_eq!(log.admit(Kind::Failed(0, 7), t0), Some(0));
        assert_eq!(log.admit(Kind::Refused(0), t0), Some(0));
        assert_eq!(log.admit(failed, t0 + INTERVAL), Some(2));
        assert_eq!(log.admit(failed, t0 + INTERVAL), None);
    }

    #[test]
    fn names_and_client_ids() {
        assert_eq!(api_name(0), "Produce");
        assert_eq!(api_name(3), "Metadata");
        assert_eq!(api_name(9999), "9999");
        let mut frame = vec![0, 0, 0, 9, 0, 0, 0, 1, 0, 3];
        frame.extend_from_slice(b"app");
        assert_eq!(client_id(&frame), Some("app"));
        frame[9] = 30; // longer than the frame
        assert_eq!(client_id(&frame), None);
        assert_eq!(client_id(&[0, 0, 0, 9, 0, 0, 0, 1, 0xff, 0xff]), None);
        assert_eq!(client_id(&[0; 4]), None);
    }
}

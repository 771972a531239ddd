//! The native core's log lines, in the broker's own formats (`ferrolog.logs`: `key=value`
//! pairs or JSON objects, one line per event, on stderr).
//!
//! Written straight to stderr rather than through Python's `logging`: a line may come from a
//! tokio worker, which must never take the GIL. The control plane installs it once with the
//! level and format it configured for itself, so the two sources interleave as one log.

use std::io::Write;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use log::{Level, LevelFilter, Log, Metadata, Record};

/// The broker's two line formats (`ferrolog.logs.FORMATS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    KeyValue,
    Json,
}

#[derive(Debug)]
struct StderrLogger {
    format: Format,
}

static LOGGER: OnceLock<StderrLogger> = OnceLock::new();

/// Installs the logger (the first call wins the format; every call sets the level).
pub fn init(level: LevelFilter, format: Format) {
    let logger = LOGGER.get_or_init(|| StderrLogger { format });
    // Fails only when a logger is installed already: ours, from an earlier call.
    let _ = log::set_logger(logger);
    log::set_max_level(level);
}

/// `ferrolog_native::log::recovery` -> `ferrolog.native.log.recovery`.
fn logger_name(target: &str) -> String {
    let rest = target.strip_prefix("ferrolog_native").unwrap_or(target);
    format!("ferrolog.native{}", rest.replace("::", "."))
}

/// `2026-11-23T13:40:15.065Z`, as `ferrolog.logs` writes it.
fn timestamp(now: SystemTime) -> String {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 to (year, month, day), Howard Hinnant's algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A JSON string literal (the `msg` field in both formats, as `json.dumps` writes it).
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn line(format: Format, now: SystemTime, level: Level, target: &str, message: &str) -> String {
    let (ts, level, name, msg) = (
        timestamp(now),
        level.as_str().to_lowercase(),
        logger_name(target),
        json_string(message),
    );
    match format {
        Format::KeyValue => format!("ts={ts} level={level} logger={name} msg={msg}\n"),
        Format::Json => format!(
            "{{\"ts\": \"{ts}\", \"level\": \"{level}\", \"logger\": \"{name}\", \"msg\": {msg}}}\n"
        ),
    }
}

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let text = line(
            self.format,
            SystemTime::now(),
            record.level(),
            record.target(),
            &record.args().to_string(),
        );
        // One write per line, so lines from several threads never interleave mid-line.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    fn flush(&self) {
        let _ = std::io::stderr().flush();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn lines_match_the_python_formats() {
        let at = UNIX_EPOCH + Duration::from_millis(1_795_441_215_065);
        assert_eq!(
            line(
                Format::KeyValue,
                at,
                Level::Warn,
                "ferrolog_native::log::recovery",
                "torn \"tail\""
            ),
            "ts=2026-11-23T13:40:15.065Z level=warn logger=ferrolog.native.log.recovery \
             msg=\"torn \\\"tail\\\"\"\n"
        );
        assert_eq!(
            line(
                Format::Json,
                at,
                Level::Info,
                "ferrolog_native::server",
                "up"
            ),
            "{\"ts\": \"2026-11-23T13:40:15.065Z\", \"level\": \"info\", \
             \"logger\": \"ferrolog.native.server\", \"msg\": \"up\"}\n"
        );
    }

    #[test]
    fn dates_across_leap_years_and_centuries() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_819), (2027, 1, 1));
    }
}

//! Kafka's error codes: the one table on the Rust side (Kafka's `Errors.java`).
//!
//! The data path answers with these codes. A failed call from Python carries one of them
//! (`CommandError::Kafka`) across the boundary in one place (`py/error.rs`) as
//! `KafkaNativeError(code, message)`, which `ferrolog.errors.from_native` turns into the
//! class of the Python exception tree for that code. The list of codes (`error_codes.rs`) is
//! generated from that Python tree, so the two cannot disagree.

macro_rules! error_codes {
    ($($name:ident = $code:expr),* $(,)?) => {
        /// A Kafka protocol error code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(i16)]
        pub enum ErrorCode {
            $($name = $code),*
        }

        impl ErrorCode {
            /// Every code with its Kafka name, for the cross-language consistency check.
            pub const ALL: &'static [(ErrorCode, &'static str)] = &[$((ErrorCode::$name, stringify!($name))),*];

            pub fn code(self) -> i16 {
                self as i16
            }

            pub fn from_code(code: i16) -> Option<ErrorCode> {
                match code {
                    $($code => Some(ErrorCode::$name),)*
                    _ => None,
                }
            }
        }
    };
}

// The codes themselves, generated from the Python table (`ferrolog.errors`).
include!("error_codes.rs");

impl ErrorCode {
    /// Kafka's name of `code` (`NOT_LEADER_OR_FOLLOWER`), or the number for a code this table
    /// does not hold.
    pub fn kafka_name(code: i16) -> String {
        match ErrorCode::from_code(code) {
            Some(e) => ErrorCode::ALL
                .iter()
                .find(|(c, _)| *c == e)
                .map_or_else(|| code.to_string(), |(_, name)| upper_snake(name)),
            None => code.to_string(),
        }
    }
}

/// `NotLeaderOrFollower` -> `NOT_LEADER_OR_FOLLOWER`.
pub fn upper_snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} ({})", self, self.code())
    }
}

impl std::error::Error for ErrorCode {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for (code, _) in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_code(code.code()), Some(*code));
        }
        assert_eq!(ErrorCode::CorruptMessage.code(), 2);
        assert_eq!(ErrorCode::from_code(9999), None);
    }
}

//! Zigzag varints, the integer encoding inside v2 records (protobuf `sint32`/`sint64`).
//!
//! Readers take a cursor and return `None` on truncation or over-long encodings, so callers
//! map malformed input to one error code without panicking.

pub fn zigzag32(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

pub fn zigzag64(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn write_varint(out: &mut Vec<u8>, v: i32) {
    write_unsigned(out, u64::from(zigzag32(v)));
}

pub fn write_varlong(out: &mut Vec<u8>, v: i64) {
    write_unsigned(out, zigzag64(v));
}

fn write_unsigned(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn unsigned_len(v: u64) -> usize {
    // 7 payload bits per byte; zero still takes one byte.
    let bits = (u64::BITS - v.leading_zeros()).max(1) as usize;
    bits.div_ceil(7)
}

pub fn varint_len(v: i32) -> usize {
    unsigned_len(u64::from(zigzag32(v)))
}

pub fn varlong_len(v: i64) -> usize {
    unsigned_len(zigzag64(v))
}

/// Reads an unsigned LEB128 value of at most `max_bytes` bytes.
fn read_unsigned(buf: &[u8], pos: &mut usize, max_bytes: usize) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..max_bytes {
        let b = *buf.get(*pos)?;
        *pos += 1;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

pub fn read_varint(buf: &[u8], pos: &mut usize) -> Option<i32> {
    let raw = read_unsigned(buf, pos, 5)?;
    if raw > u64::from(u32::MAX) {
        return None;
    }
    let raw = raw as u32;
    Some(((raw >> 1) as i32) ^ -((raw & 1) as i32))
}

pub fn read_varlong(buf: &[u8], pos: &mut usize) -> Option<i64> {
    let raw = read_unsigned(buf, pos, 10)?;
    Some(((raw >> 1) as i64) ^ -((raw & 1) as i64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_encodings() {
        let mut out = Vec::new();
        write_varint(&mut out, 0);
        write_varint(&mut out, -1);
        write_varint(&mut out, 1);
        write_varint(&mut out, 64);
        assert_eq!(out, [0x00, 0x01, 0x02, 0x80, 0x01]);
    }

    #[test]
    fn truncated_and_overlong_inputs_are_rejected() {
        assert_eq!(read_varint(&[0x80], &mut 0), None);
        assert_eq!(
            read_varint(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01], &mut 0),
            None
        );
        assert_eq!(read_varint(&[0xff, 0xff, 0xff, 0xff, 0x7f], &mut 0), None);
        assert_eq!(read_varlong(&[0xff; 11], &mut 0), None);
    }

    proptest! {
        #[test]
        fn round_trip(a in any::<i32>(), b in any::<i64>()) {
            let mut out = Vec::new();
            write_varint(&mut out, a);
            prop_assert_eq!(out.len(), varint_len(a));
            write_varlong(&mut out, b);
            prop_assert_eq!(out.len(), varint_len(a) + varlong_len(b));
            let mut pos = 0;
            prop_assert_eq!(read_varint(&out, &mut pos), Some(a));
            prop_assert_eq!(read_varlong(&out, &mut pos), Some(b));
            prop_assert_eq!(pos, out.len());
        }
    }
}

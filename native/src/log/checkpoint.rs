//! Kafka's text checkpoint files: a version line (`0`), a count line, then one entry per line.
//! Written to a temp file, fsynced, renamed over the old one, and the directory fsynced, so a
//! crash leaves either the old or the new file, never a mix.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

fn invalid(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {why}", path.display()),
    )
}

/// Writes `lines` as a version-0 checkpoint, durably.
pub(crate) fn write_lines(path: &Path, lines: &[String]) -> io::Result<()> {
    write_lines_unsynced(path, lines, true)
}

/// Writes `lines` as a version-0 checkpoint (temp file, rename): whole, old or new, but
/// durable only once the caller fsyncs the file and its directory, unless `sync`.
pub(crate) fn write_lines_unsynced(path: &Path, lines: &[String], sync: bool) -> io::Result<()> {
    let mut text = format!("0\n{}\n", lines.len());
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    let tmp = path.with_extension("tmp");
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)?;
    file.write_all(text.as_bytes())?;
    if sync {
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    if sync {
        sync_dir(path.parent().unwrap_or(Path::new(".")))?;
    }
    Ok(())
}

/// Makes everything written to the file system that holds `dir` durable: one call instead of
/// an fsync per file, for closing every log of a directory at shutdown (the broker owns its
/// log directories; whatever else is dirty on that file system is written back too).
#[allow(unsafe_code)]
pub(crate) fn sync_file_system(dir: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let handle = File::open(dir)?;
    // SAFETY: syncfs only reads the descriptor, which `handle` keeps open for the call.
    if unsafe { libc::syncfs(handle.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Makes a rename or a new file in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The entry lines of a checkpoint; None when the file does not exist.
pub(crate) fn read_lines(path: &Path) -> io::Result<Option<Vec<String>>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some("0") {
        return Err(invalid(path, "unsupported checkpoint version"));
    }
    let count: usize = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| invalid(path, "bad entry count"))?;
    let entries: Vec<String> = lines
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    if entries.len() != count {
        return Err(invalid(path, "entry count does not match"));
    }
    Ok(Some(entries))
}

/// A `topic partition offset` checkpoint (high watermarks, recovery points, log start offsets).
pub fn read_offsets(path: &Path) -> io::Result<HashMap<(String, i32), i64>> {
    let mut map = HashMap::new();
    for line in read_lines(path)?.unwrap_or_default() {
        let mut parts = line.rsplitn(3, ' ');
        let (Some(offset), Some(partition), Some(topic)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid(path, "bad entry"));
        };
        let offset = offset.parse().map_err(|_| invalid(path, "bad offset"))?;
        let partition = partition
            .parse()
            .map_err(|_| invalid(path, "bad partition"))?;
        map.insert((topic.to_owned(), partition), offset);
    }
    Ok(map)
}

pub fn write_offsets(path: &Path, offsets: &HashMap<(String, i32), i64>) -> io::Result<()> {
    let mut entries: Vec<_> = offsets.iter().collect();
    entries.sort();
    let lines: Vec<String> = entries
        .into_iter()
        .map(|((t, p), o)| format!("{t} {p} {o}"))
        .collect();
    write_lines(path, &lines)
}

//! Writes a response's chunks to the socket; file regions go with `sendfile(2)` so record data
//! moves from the page cache to the socket without entering user space.
//!
//! The `unsafe` is two libc calls, sendfile and the TCP_CORK setsockopt: std and tokio have
//! neither. Both descriptors are
//! borrowed from live owners (`TcpStream`, `Arc<File>`) for the duration of the call.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

use tokio::io::{AsyncWriteExt, Interest};
use tokio::net::TcpStream;

use crate::protocol::Chunk;

pub async fn write_chunks(stream: &mut TcpStream, chunks: &[Chunk]) -> io::Result<()> {
    // A Fetch response alternates small field buffers and file regions; corking the socket
    // for its duration lets the kernel pack them into full segments instead of sending each
    // small buffer as its own packet (the socket has TCP_NODELAY).
    let cork = chunks.len() > 1;
    if cork {
        set_cork(stream, true);
    }
    let result = write_all_chunks(stream, chunks).await;
    if cork {
        set_cork(stream, false);
    }
    result
}

fn set_cork(stream: &TcpStream, on: bool) {
    let value: libc::c_int = on.into();
    // SAFETY: passes a live c_int of the size given to a socket descriptor we borrow; a failure
    // only costs packet efficiency.
    let _ = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_CORK,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
}

async fn write_all_chunks(stream: &mut TcpStream, chunks: &[Chunk]) -> io::Result<()> {
    for chunk in chunks {
        match chunk {
            Chunk::Bytes(b) => stream.write_all(b).await?,
            Chunk::File {
                file,
                position,
                length,
            } => send_file(stream, file, *position, *length as usize).await?,
        }
    }
    Ok(())
}

async fn send_file(
    stream: &TcpStream,
    file: &File,
    position: u64,
    length: usize,
) -> io::Result<()> {
    let mut offset = position as libc::off_t;
    let mut remaining = length;
    while remaining > 0 {
        stream.writable().await?;
        let sent = stream.try_io(Interest::WRITABLE, || {
            // SAFETY: both descriptors are open for the whole call; `offset` is a live local
            // that the kernel advances.
            let n = unsafe {
                libc::sendfile(stream.as_raw_fd(), file.as_raw_fd(), &mut offset, remaining)
            };
            if n < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(n as usize)
            }
        });
        match sent {
            // The file shrank under us (retention or truncation): the size prefix already
            // promised these bytes, so the response cannot be completed.
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "segment shrank",
                ))
            }
            Ok(n) => remaining -= n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

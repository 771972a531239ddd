//! The byte streams a connection is served over: a plain TCP socket, or TLS over one.
//!
//! The connection code is generic over [`Transport`], so the plaintext path compiles to what
//! it was before TLS (no boxing, no dispatch per read or write): responses with file regions
//! still go out with `sendfile(2)`. Under TLS the bytes must be encrypted in user space, so a
//! file region is read from the segment into a buffer and written through the TLS stream:
//! one read into that buffer, then rustls encrypts it into its records.

use std::fs::File;
use std::future::Future;
use std::io;
use std::os::unix::fs::FileExt;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use super::sendfile;
use crate::protocol::Chunk;

/// A connection's stream: what the connection reads requests from and writes responses to.
pub trait Transport: AsyncRead + AsyncWrite + Unpin + Send {
    /// Writes a response's chunks, and flushes them.
    fn write_chunks(&mut self, chunks: &[Chunk]) -> impl Future<Output = io::Result<()>> + Send;
}

impl Transport for TcpStream {
    fn write_chunks(&mut self, chunks: &[Chunk]) -> impl Future<Output = io::Result<()>> + Send {
        sendfile::write_chunks(self, chunks)
    }
}

/// How much of a file region is read at once under TLS: a few TLS records' worth, so the
/// buffer stays small while rustls still fills whole records.
const TLS_FILE_BUFFER: usize = 256 * 1024;

impl Transport for TlsStream<TcpStream> {
    async fn write_chunks(&mut self, chunks: &[Chunk]) -> io::Result<()> {
        let mut buffer = Vec::new();
        for chunk in chunks {
            match chunk {
                Chunk::Bytes(b) => self.write_all(b).await?,
                Chunk::File {
                    file,
                    position,
                    length,
                } => {
                    if buffer.is_empty() {
                        buffer = vec![0; TLS_FILE_BUFFER.min(*length as usize)];
                    }
                    write_file(self, &mut buffer, file, *position, *length as usize).await?;
                }
            }
        }
        self.flush().await
    }
}

async fn write_file(
    stream: &mut TlsStream<TcpStream>,
    buffer: &mut Vec<u8>,
    file: &File,
    position: u64,
    length: usize,
) -> io::Result<()> {
    let mut offset = position;
    let mut remaining = length;
    while remaining > 0 {
        let want = remaining.min(TLS_FILE_BUFFER);
        if buffer.len() < want {
            buffer.resize(want, 0);
        }
        // A positioned read of record data, almost always in the page cache (it was just
        // written or just indexed), as the native Fetch path reads elsewhere.
        let read = file.read_at(&mut buffer[..want], offset)?;
        if read == 0 {
            // The file shrank under us (retention or truncation): the size prefix already
            // promised these bytes, so the response cannot be completed.
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "segment shrank",
            ));
        }
        stream.write_all(&buffer[..read]).await?;
        offset += read as u64;
        remaining -= read;
    }
    Ok(())
}

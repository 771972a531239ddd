//! The byte streams a connection is served over: a plain TCP socket, or TLS over one.
//!
//! The connection code is generic over [`Transport`], so the plaintext path compiles to what
//! it was before TLS (no boxing, no dispatch per read or write): responses with file regions
//! still go out with `sendfile(2)`. Under TLS the bytes must be encrypted in user space, so a
//! file region is read from the segment into a buffer, together with the response's small
//! field buffers, and written through the TLS stream: one read into that buffer, then rustls
//! encrypts it into its records.

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

/// The plaintext gathered before it goes through rustls: a few TLS records' worth (16 KiB
/// each), so a Fetch response's small field buffers and its record data leave as full records
/// instead of one small record per piece.
const TLS_BUFFER: usize = 64 * 1024;

impl Transport for TlsStream<TcpStream> {
    async fn write_chunks(&mut self, chunks: &[Chunk]) -> io::Result<()> {
        let mut out = Gather {
            buffer: vec![0; TLS_BUFFER],
            filled: 0,
        };
        for chunk in chunks {
            match chunk {
                Chunk::Bytes(b) if b.len() >= TLS_BUFFER => {
                    out.drain(self).await?;
                    self.write_all(b).await?;
                }
                Chunk::Bytes(b) => {
                    if out.filled + b.len() > TLS_BUFFER {
                        out.drain(self).await?;
                    }
                    out.buffer[out.filled..out.filled + b.len()].copy_from_slice(b);
                    out.filled += b.len();
                }
                Chunk::File {
                    file,
                    position,
                    length,
                } => {
                    out.read_file(self, file, *position, *length as usize)
                        .await?
                }
            }
        }
        out.drain(self).await?;
        self.flush().await
    }
}

/// A response's bytes on their way into the TLS stream.
struct Gather {
    buffer: Vec<u8>,
    filled: usize,
}

impl Gather {
    async fn drain(&mut self, stream: &mut TlsStream<TcpStream>) -> io::Result<()> {
        if self.filled > 0 {
            stream.write_all(&self.buffer[..self.filled]).await?;
            self.filled = 0;
        }
        Ok(())
    }

    /// Reads a file region into the buffer (the one copy user-space TLS needs: rustls then
    /// encrypts from here into its records), draining it whenever it fills.
    async fn read_file(
        &mut self,
        stream: &mut TlsStream<TcpStream>,
        file: &File,
        position: u64,
        length: usize,
    ) -> io::Result<()> {
        let mut offset = position;
        let mut remaining = length;
        while remaining > 0 {
            if self.filled == self.buffer.len() {
                self.drain(stream).await?;
            }
            let want = remaining.min(self.buffer.len() - self.filled);
            // A positioned read of record data, almost always in the page cache (it was just
            // written or just indexed), as the native Fetch path reads elsewhere.
            let read = file.read_at(&mut self.buffer[self.filled..self.filled + want], offset)?;
            if read == 0 {
                // The file shrank under us (retention or truncation): the size prefix already
                // promised these bytes, so the response cannot be completed.
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "segment shrank",
                ));
            }
            self.filled += read;
            offset += read as u64;
            remaining -= read;
        }
        Ok(())
    }
}

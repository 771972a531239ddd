//! `queued.max.request.bytes`: Kafka's memory pool for requests read and not yet handled. A
//! connection reads a request's body only while the pool has memory left, and takes the
//! request's size from it (it may overdraw: Kafka's pool is not strict, so one request as
//! large as `socket.request.max.bytes` always gets in); the size returns when the request is
//! handled, or when it is handed to the control plane, which decodes it at once (Kafka
//! releases every request but Produce's once parsed). Until then the other connections wait
//! before reading, and the bytes waiting in their sockets stay in the kernel.

use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::Notify;

#[derive(Debug)]
pub struct RequestMemory {
    limit: i64,
    /// None: no limit (Kafka's default, -1).
    available: Option<Mutex<i64>>,
    freed: Notify,
}

/// Memory taken from the pool, returned when dropped.
#[derive(Debug)]
pub struct Grant {
    pool: Option<Arc<RequestMemory>>,
    bytes: i64,
}

impl RequestMemory {
    /// `limit` <= 0: no limit.
    pub fn new(limit: i64) -> Arc<Self> {
        Arc::new(RequestMemory {
            limit,
            available: (limit > 0).then(|| Mutex::new(limit)),
            freed: Notify::new(),
        })
    }

    /// Waits until the pool has memory left, then takes `bytes` from it.
    pub async fn take(self: &Arc<Self>, bytes: usize) -> Grant {
        let Some(available) = &self.available else {
            return Grant {
                pool: None,
                bytes: 0,
            };
        };
        let bytes = bytes as i64;
        loop {
            // Registered before the check, so a release between the two is not missed.
            let freed = self.freed.notified();
            {
                let mut left = available.lock();
                if *left > 0 {
                    *left -= bytes;
                    return Grant {
                        pool: Some(Arc::clone(self)),
                        bytes,
                    };
                }
            }
            freed.await;
        }
    }

    /// Bytes left (negative when overdrawn); None without a limit.
    pub fn available(&self) -> Option<i64> {
        self.available.as_ref().map(|a| *a.lock())
    }

    /// Kafka's `MemoryPoolAvailable` and `MemoryPoolUsed`: without a limit, i64::MAX and 0.
    pub fn gauges(&self) -> (i64, i64) {
        match self.available() {
            Some(left) => (left, self.limit - left),
            None => (i64::MAX, 0),
        }
    }
}

impl Drop for Grant {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            if let Some(available) = &pool.available {
                *available.lock() += self.bytes;
            }
            pool.freed.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_request_waits_until_memory_is_returned() {
        let pool = RequestMemory::new(100);
        let first = pool.take(150).await; // overdraws: one large request always gets in
        assert_eq!(pool.available(), Some(-50));
        let waiting = tokio::spawn({
            let pool = Arc::clone(&pool);
            async move { pool.take(10).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "read while the pool was empty");
        drop(first);
        let second = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken when memory came back")
            .expect("task");
        assert_eq!(pool.available(), Some(90));
        drop(second);
        assert_eq!(pool.available(), Some(100));
    }

    #[tokio::test]
    async fn without_a_limit_nothing_is_counted() {
        let pool = RequestMemory::new(-1);
        let _grant = pool.take(1 << 30).await;
        assert_eq!(pool.available(), None);
    }
}

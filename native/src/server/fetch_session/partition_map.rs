//! The partitions of one fetch session: looked up by key, iterated in order, and moved to the
//! end once they returned data, so that a response cut short by its byte limit serves the
//! others first next time (Kafka keeps its session in an `ImplicitLinkedHashCollection` for
//! the same reason).

use std::collections::HashMap;

use super::{FetchParams, PartitionKey, Sent};

/// One partition of a session: what the fetcher last asked, and what it was last told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedPartition {
    pub key: PartitionKey,
    pub params: FetchParams,
    pub sent: Sent,
}

/// Slots in order with holes where partitions left; the index points into the slots.
#[derive(Debug, Default)]
pub struct PartitionMap {
    pub(super) slots: Vec<Option<CachedPartition>>,
    index: HashMap<PartitionKey, usize>,
}

impl PartitionMap {
    pub fn with_capacity(n: usize) -> Self {
        PartitionMap {
            slots: Vec::with_capacity(n),
            index: HashMap::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    pub fn get(&self, key: &PartitionKey) -> Option<&CachedPartition> {
        self.index.get(key).and_then(|&i| self.slots[i].as_ref())
    }

    pub fn get_mut(&mut self, key: &PartitionKey) -> Option<&mut CachedPartition> {
        let i = *self.index.get(key)?;
        self.slots[i].as_mut()
    }

    /// Adds `entry` at the end, or replaces the entry of its key in place.
    pub fn insert(&mut self, entry: CachedPartition) {
        match self.index.get(&entry.key) {
            Some(&i) => self.slots[i] = Some(entry),
            None => {
                self.index.insert(entry.key.clone(), self.slots.len());
                self.slots.push(Some(entry));
            }
        }
    }

    pub fn remove(&mut self, key: &PartitionKey) -> Option<CachedPartition> {
        let i = self.index.remove(key)?;
        let removed = self.slots[i].take();
        self.compact_if_sparse();
        removed
    }

    /// Moves the entry of `key` behind every other entry.
    pub fn move_to_end(&mut self, key: &PartitionKey) {
        let Some(i) = self.index.get(key).copied() else {
            return;
        };
        if i + 1 == self.slots.len() {
            return;
        }
        let entry = self.slots[i].take();
        self.index.insert(key.clone(), self.slots.len());
        self.slots.push(entry);
        self.compact_if_sparse();
    }

    pub fn iter(&self) -> impl Iterator<Item = &CachedPartition> {
        self.slots.iter().flatten()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut CachedPartition> {
        self.slots.iter_mut().flatten()
    }

    /// Keeps the holes below half the slots, so memory follows the live entries and moving
    /// costs O(1) amortised.
    fn compact_if_sparse(&mut self) {
        if self.slots.len() < 16 || self.slots.len() < 2 * self.index.len() {
            return;
        }
        self.slots.retain(Option::is_some);
        for (i, slot) in self.slots.iter().enumerate() {
            if let Some(entry) = slot {
                *self.index.get_mut(&entry.key).expect("indexed") = i;
            }
        }
        self.slots.shrink_to(self.index.len() * 2);
    }
}

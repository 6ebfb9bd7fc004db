//! The internal slots of one kind of host object, keyed by its heap id.
//!
//! The specifications give every platform object its internal slots
//! ([[aborted]], [[event listener list]], ...). The model keeps each kind's
//! slots in a table of its own, looked up by the object's [`ObjectId`]. Heap
//! ids are dense (the runtime numbers objects from 0 as it allocates them),
//! so the table is a vector indexed by id: a lookup is an index, where a
//! search tree paid a dozen comparisons on every property read.

use std::ops::Index;

use nodesem_runtime::ObjectId;

/// One kind's slots: at most one `T` per object.
#[derive(Debug)]
pub struct Slots<T> {
    by_id: Vec<Option<T>>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots { by_id: Vec::new() }
    }
}

impl<T> Slots<T> {
    /// Gives `id` these slots, replacing any it had.
    pub fn insert(&mut self, id: ObjectId, slots: T) {
        let at = id.0 as usize;
        if self.by_id.len() <= at {
            // Room for a scenario's worth of objects at once: growing a
            // table of large slots from empty copied it again and again.
            self.by_id.reserve((at + 1).max(32) - self.by_id.len());
            self.by_id.resize_with(at + 1, || None);
        }
        self.by_id[at] = Some(slots);
    }

    /// The slots of `id`, if it is of this kind.
    pub fn get(&self, id: &ObjectId) -> Option<&T> {
        self.by_id.get(id.0 as usize).and_then(Option::as_ref)
    }

    /// The slots of `id`, mutably.
    pub fn get_mut(&mut self, id: &ObjectId) -> Option<&mut T> {
        self.by_id.get_mut(id.0 as usize).and_then(Option::as_mut)
    }

    /// Whether `id` is of this kind.
    pub fn contains_key(&self, id: &ObjectId) -> bool {
        self.get(id).is_some()
    }

    /// Takes every object's slots away, keeping the table's memory.
    pub fn clear(&mut self) {
        self.by_id.clear();
    }

    /// Whether no object has slots of this kind.
    pub fn is_empty(&self) -> bool {
        self.by_id.iter().all(Option::is_none)
    }

    /// The ids of the objects with slots of this kind, in id order.
    pub fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.by_id
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| ObjectId(i as u32))
    }

    /// Takes the slots of `id` away.
    pub fn remove(&mut self, id: &ObjectId) -> Option<T> {
        self.by_id.get_mut(id.0 as usize).and_then(Option::take)
    }
}

impl<T> Index<&ObjectId> for Slots<T> {
    type Output = T;

    /// The slots of `id`, which must be of this kind.
    fn index(&self, id: &ObjectId) -> &T {
        self.get(id).expect("an object of this kind")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_has_the_slots_it_was_given_until_they_are_removed() {
        let mut slots = Slots::default();
        slots.insert(ObjectId(3), "three");
        assert_eq!(slots.get(&ObjectId(3)), Some(&"three"));
        assert!(!slots.contains_key(&ObjectId(2)), "below the highest id");
        assert!(!slots.contains_key(&ObjectId(9)), "past the end");
        slots.insert(ObjectId(3), "again");
        assert_eq!(slots[&ObjectId(3)], "again");
        assert_eq!(slots.remove(&ObjectId(3)), Some("again"));
        assert!(!slots.contains_key(&ObjectId(3)));
        assert_eq!(slots.remove(&ObjectId(3)), None);
    }
}

//! Per-entity state arrays that the workers of a parallel run share without locks.
//!
//! Every entry belongs to one entity, and every entity to one worker; a worker reads and writes
//! only the entries of the entities it owns, so no entry is ever touched by two threads between
//! two barriers. That invariant (which the partition guarantees, see `network::parallel`) is
//! what makes the aliasing views sound; the type cannot check it.

use std::ops::{Deref, DerefMut};

/// A fixed-length array: the owner frees it; views alias it for the workers of one run.
pub struct SharedArray<T> {
    ptr: *mut T,
    len: usize,
    owned: bool,
}

// SAFETY: a view hands entries to one thread at a time (see the module comment); the owner is a
// plain boxed slice.
unsafe impl<T: Send> Send for SharedArray<T> {}
unsafe impl<T: Sync> Sync for SharedArray<T> {}

impl<T> SharedArray<T> {
    /// Takes ownership of `values` (no copy when its capacity equals its length).
    pub fn new(values: Vec<T>) -> Self {
        let boxed = values.into_boxed_slice();
        let len = boxed.len();
        let ptr = Box::into_raw(boxed).cast::<T>();
        SharedArray {
            ptr,
            len,
            owned: true,
        }
    }

    /// A view of the same entries.
    ///
    /// # Safety
    /// The view must not outlive the owner, and the owner and its views must never touch the
    /// same entry from two threads without a synchronization between the accesses.
    pub unsafe fn view(&self) -> Self {
        SharedArray {
            ptr: self.ptr,
            len: self.len,
            owned: false,
        }
    }

    /// The entries as a vector (the owner only: views have nothing to give).
    pub fn into_vec(self) -> Vec<T> {
        assert!(
            self.owned,
            "only the owner of a shared array can take its entries"
        );
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: the owner's pointer and length came from `Box::into_raw` of a boxed slice.
        unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(this.ptr, this.len)) }.into_vec()
    }
}

impl<T> Deref for SharedArray<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: ptr and len describe a live allocation (the owner outlives its views).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> DerefMut for SharedArray<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`; exclusive use of each entry is the module's invariant.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T> Drop for SharedArray<T> {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: as in `into_vec`.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len)) });
        }
    }
}

impl<T> From<Vec<T>> for SharedArray<T> {
    fn from(values: Vec<T>) -> Self {
        SharedArray::new(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_see_the_owners_entries_and_only_the_owner_frees() {
        let mut owner = SharedArray::new(vec![1u64, 2, 3]);
        {
            // SAFETY: one thread, and the view dies first.
            let mut view = unsafe { owner.view() };
            view[1] = 20;
        }
        owner[2] = 30;
        assert_eq!(owner.into_vec(), vec![1, 20, 30]);
    }
}

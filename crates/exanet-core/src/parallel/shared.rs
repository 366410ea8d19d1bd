//! Per-entity state arrays that the workers of a parallel run share without locks.
//!
//! Every entry belongs to one entity, and every entity to one worker; a worker reads and writes
//! only the entries of the entities it owns, so no entry is ever touched by two threads between
//! two barriers. That invariant (which the partition guarantees, see `network::parallel`) is
//! what makes the aliasing views sound; the type cannot check it.
//!
//! An array may hold a window of the entities only (a process of a run across processes holds
//! its own part): it is indexed by global entity index all the same, from `first` on.

use std::ops::{Index, IndexMut, Range};

/// A fixed-length array of the entries `first..first + len`: the owner frees it; views alias it
/// for the workers of one run.
pub struct SharedArray<T> {
    ptr: *mut T,
    len: usize,
    first: usize,
    owned: bool,
}

// SAFETY: a view hands entries to one thread at a time (see the module comment); the owner is a
// plain boxed slice.
unsafe impl<T: Send> Send for SharedArray<T> {}
unsafe impl<T: Sync> Sync for SharedArray<T> {}

impl<T> SharedArray<T> {
    /// Takes ownership of `values`, the entries from index 0 (no copy when its capacity equals
    /// its length).
    pub fn new(values: Vec<T>) -> Self {
        Self::starting_at(0, values)
    }

    /// Takes ownership of `values`, the entries from index `first`.
    pub fn starting_at(first: usize, values: Vec<T>) -> Self {
        let boxed = values.into_boxed_slice();
        let len = boxed.len();
        let ptr = Box::into_raw(boxed).cast::<T>();
        SharedArray {
            ptr,
            len,
            first,
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
            first: self.first,
            owned: false,
        }
    }

    /// The indices of the entries it holds.
    pub fn indices(&self) -> Range<usize> {
        self.first..self.first + self.len
    }

    /// Whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entries it holds, from `first` on.
    #[inline(always)]
    pub fn held(&self) -> &[T] {
        // SAFETY: ptr and len describe a live allocation (the owner outlives its views).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The entries it holds, from `first` on, to change.
    #[inline(always)]
    pub fn held_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `held`; exclusive use of each entry is the module's invariant.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// Entry `index`, if it holds it.
    #[inline(always)]
    pub fn get(&self, index: usize) -> Option<&T> {
        self.held().get(index.wrapping_sub(self.first))
    }

    /// Entry `index`, if it holds it, to change.
    #[inline(always)]
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        let first = self.first;
        self.held_mut().get_mut(index.wrapping_sub(first))
    }

    /// The entries as a vector, from `first` on (the owner only: views have nothing to give).
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

impl<T> Index<usize> for SharedArray<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, index: usize) -> &T {
        &self.held()[index.wrapping_sub(self.first)]
    }
}

impl<T> IndexMut<usize> for SharedArray<T> {
    #[inline(always)]
    fn index_mut(&mut self, index: usize) -> &mut T {
        let first = self.first;
        &mut self.held_mut()[index.wrapping_sub(first)]
    }
}

impl<T> Index<Range<usize>> for SharedArray<T> {
    type Output = [T];
    #[inline(always)]
    fn index(&self, range: Range<usize>) -> &[T] {
        &self.held()[range.start.wrapping_sub(self.first)..range.end.wrapping_sub(self.first)]
    }
}

impl<T> IndexMut<Range<usize>> for SharedArray<T> {
    #[inline(always)]
    fn index_mut(&mut self, range: Range<usize>) -> &mut [T] {
        let first = self.first;
        &mut self.held_mut()[range.start.wrapping_sub(first)..range.end.wrapping_sub(first)]
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

impl<T> Default for SharedArray<T> {
    /// No entries.
    fn default() -> Self {
        SharedArray::new(Vec::new())
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

    #[test]
    fn a_window_is_indexed_by_global_index_and_refuses_others() {
        let mut window = SharedArray::starting_at(10, vec![1u32, 2, 3]);
        window[11] = 20;
        assert_eq!((window[10], window[11], window[12]), (1, 20, 3));
        assert_eq!(&window[11..13], &[20, 3]);
        assert_eq!(window.indices(), 10..13);
        for outside in [0, 9, 13] {
            let read = std::panic::catch_unwind(|| window[outside]);
            assert!(read.is_err(), "entry {outside} is outside the window");
        }
    }
}

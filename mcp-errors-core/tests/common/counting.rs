//! A global allocator that counts, per thread, the allocations and bytes asked for, so tests
//! running on other threads do not count. Included by the test binaries that bound what the
//! reading of an argument error allocates.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|count| {
            let (calls, bytes) = count.get();
            count.set((calls + 1, bytes + layout.size()));
        });
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The allocations and bytes this thread has asked for so far.
pub fn allocated() -> (usize, usize) {
    ALLOCATED.with(Cell::get)
}

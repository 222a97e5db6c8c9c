#pragma once
#include <stdbool.h>
#include <stdint.h>

// A malloc counter: this target defines malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
// memalign and valloc, so every allocation of the process (the Swift runtime, Foundation, the
// libraries) comes here first and is forwarded to glibc's own allocator (__libc_malloc and friends).
// Counting is off until mc_set_enabled(true); while off, the cost is one relaxed atomic load.

/// Starts or stops counting.
void mc_set_enabled(bool enabled);
/// Allocations (malloc, calloc, realloc that moves or allocates, aligned variants) counted so far.
uint64_t mc_allocations(void);
/// Frees counted so far.
uint64_t mc_frees(void);
/// Live heap bytes (malloc_usable_size of blocks allocated minus freed while counting).
int64_t mc_live_bytes(void);
/// Resets every counter to zero.
void mc_reset(void);

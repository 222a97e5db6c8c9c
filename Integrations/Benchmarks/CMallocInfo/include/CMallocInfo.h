#include <stddef.h>

/// The bytes malloc has handed out and not had back (glibc's mallinfo2().uordblks: the main arena).
size_t strata_bench_allocated_bytes(void);

/// Makes every thread allocate from the main arena (mallopt(M_ARENA_MAX, 1)), so that
/// strata_bench_allocated_bytes counts every thread's memory. Call it before any thread starts.
void strata_bench_single_arena(void);

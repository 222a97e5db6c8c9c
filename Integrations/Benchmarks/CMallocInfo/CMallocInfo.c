#include "CMallocInfo.h"
#include <stdlib.h>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>

size_t strata_bench_allocated_bytes(void) { return mallinfo2().uordblks; }

void strata_bench_single_arena(void) { mallopt(M_ARENA_MAX, 1); }
#else
// Other C libraries have no mallinfo2: the benchmark prints no bytes per key there.
size_t strata_bench_allocated_bytes(void) { return 0; }

void strata_bench_single_arena(void) {}
#endif

#include "MallocCounter.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>

// glibc's allocator entry points, exported by libc.so.6 (no dlsym bootstrap problem).
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_bool enabled;
static atomic_uint_fast64_t allocations;
static atomic_uint_fast64_t frees;
static atomic_int_fast64_t liveBytes;

void mc_set_enabled(bool on) { atomic_store_explicit(&enabled, on, memory_order_seq_cst); }
uint64_t mc_allocations(void) { return atomic_load(&allocations); }
uint64_t mc_frees(void) { return atomic_load(&frees); }
int64_t mc_live_bytes(void) { return atomic_load(&liveBytes); }
void mc_reset(void) {
  atomic_store(&allocations, 0);
  atomic_store(&frees, 0);
  atomic_store(&liveBytes, 0);
}

static inline bool counting(void) { return atomic_load_explicit(&enabled, memory_order_relaxed); }

static inline void *noteAllocation(void *pointer) {
  if (pointer != NULL && counting()) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&liveBytes, (int64_t)malloc_usable_size(pointer), memory_order_relaxed);
  }
  return pointer;
}

static inline void noteFree(void *pointer) {
  if (pointer != NULL && counting()) {
    atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&liveBytes, (int64_t)malloc_usable_size(pointer), memory_order_relaxed);
  }
}

void *malloc(size_t size) { return noteAllocation(__libc_malloc(size)); }

void *calloc(size_t count, size_t size) { return noteAllocation(__libc_calloc(count, size)); }

void *realloc(void *pointer, size_t size) {
  if (pointer == NULL) return malloc(size);
  if (size == 0) {
    free(pointer);
    return NULL;
  }
  size_t before = counting() ? malloc_usable_size(pointer) : 0;
  void *result = __libc_realloc(pointer, size);
  if (result != NULL && counting()) {
    // A realloc is one allocation (it may move the block); the byte count follows the block's size.
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&liveBytes, (int64_t)malloc_usable_size(result) - (int64_t)before,
                              memory_order_relaxed);
  }
  return result;
}

void free(void *pointer) {
  noteFree(pointer);
  __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) { return noteAllocation(__libc_memalign(alignment, size)); }

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

void *valloc(size_t size) { return memalign(4096, size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void *pointer = memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *result = pointer;
  return 0;
}

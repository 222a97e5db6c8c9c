#include "CStrataSignals.h"

#include <errno.h>
#include <unistd.h>

// Read and written only with the compiler's atomic builtins, lock-free for an int: reading it in a
// handler is async-signal-safe (C11 7.14.1.1 allows lock-free atomics in handlers).
static int wake_fd = -1;

void strata_signal_wake_set(int fd) {
  __atomic_store_n(&wake_fd, fd, __ATOMIC_SEQ_CST);
}

void strata_signal_wake_handler(int signal) {
  (void)signal;
  int fd = __atomic_load_n(&wake_fd, __ATOMIC_RELAXED);
  if (fd < 0) return;
  int saved = errno;
  unsigned char byte = 1;
  (void)write(fd, &byte, 1);
  errno = saved;
}

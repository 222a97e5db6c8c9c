// A signal handler that only writes one byte to a pipe, reading the pipe's descriptor from a C variable:
// a handler written in Swift would read a Swift global (a lazy initializer, retains), which is not
// async-signal-safe.
#ifndef C_STRATA_SIGNALS_H
#define C_STRATA_SIGNALS_H

/// Sets the descriptor `strata_signal_wake_handler` writes to (-1: none). Set it before installing the
/// handler; it is read with a relaxed atomic load in the handler.
void strata_signal_wake_set(int fd);

/// A handler for `sigaction`: writes one byte to the descriptor set by `strata_signal_wake_set`
/// (nothing when none is set), keeping `errno`. Only `write` is called, which is async-signal-safe.
void strata_signal_wake_handler(int signal);

#endif

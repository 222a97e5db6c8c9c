// The one place Strata names a C library module. The library, config-dump and the tests import
// `StrataPlatform`, which re-exports the module below, so the POSIX calls that are spelled the same on
// every system (`open`, `fstat`, `rename`, `fsync`, `flock`, …) stay usable as they are; what is spelled
// differently is wrapped in this folder.
//
// The chain is swift-log's (`Locks.swift`): Darwin first (macOS, iOS: libSystem), then glibc, Bionic
// and musl (the static Linux SDK). WASI is left out on purpose: it has no signals, no `pthread_create`
// and no Unix sockets, which the wrappers here need, so a WASI build stops at the `#error` below with
// that reason rather than deep inside a wrapper. Only the Glibc branch is compiled and tested here.
#if canImport(Darwin)
  @_exported public import Darwin
#elseif canImport(Glibc)
  @_exported public import Glibc
#elseif canImport(Android)
  @_exported public import Android
#elseif canImport(Musl)
  @_exported public import Musl
#else
  #error("StrataPlatform: no supported C library module (Darwin, Glibc, Android or Musl) to import")
#endif

// In an optimized build `timespec` and `timeval` resolve to the toolchain's shim copies (on Linux at
// least); their members must be visible where the library names them (MemberImportVisibility).
#if canImport(SwiftOverlayShims)
  @_exported public import SwiftOverlayShims
#endif

// The one place Strata names a C library module. Every other file of the package imports
// `StrataPlatform`, which re-exports the module below, so the POSIX calls that are spelled the same on
// every system (`open`, `fstat`, `rename`, `fsync`, `flock`, …) stay usable as they are; what is spelled
// differently is wrapped in this folder.
//
// The chain is swift-log's (`Locks.swift`): Darwin first (macOS, iOS: libSystem), then glibc, Bionic,
// musl (static Linux SDK) and WASI. Only the Glibc branch is compiled and tested here.
#if canImport(Darwin)
  @_exported public import Darwin
#elseif canImport(Glibc)
  @_exported public import Glibc
#elseif canImport(Android)
  @_exported public import Android
#elseif canImport(Musl)
  @_exported public import Musl
#elseif canImport(WASILibc)
  @_exported public import WASILibc
#else
  #error("StrataPlatform: no C library module (Darwin, Glibc, Android, Musl or WASILibc) to import")
#endif

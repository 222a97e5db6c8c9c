/// Descriptors in bulk.
package enum DescriptorRange {
  /// Closes every descriptor from `first` up (what a process inherited without close-on-exec).
  ///
  /// glibc 2.34 and later have `closefrom` (`<unistd.h>`), looked up at run time because the Glibc
  /// module does not import it and older glibc lacks it. Darwin, musl and older glibc have none: every
  /// descriptor below the process's limit, `sysconf(_SC_OPEN_MAX)` (`<unistd.h>`), is closed one by one
  /// with `close` (`<unistd.h>`; `EBADF` for those not open is ignored).
  package static func closeAll(from first: CInt) {
    #if canImport(Glibc)
      typealias CloseFrom = @convention(c) (CInt) -> Void
      if let symbol = DynamicSymbol.address(of: "closefrom") {
        unsafeBitCast(symbol, to: CloseFrom.self)(first)
        return
      }
    #endif
    closeEachBelowLimit(from: first)
  }

  /// The fallback of ``closeAll(from:)``: `close` on each descriptor from `first` to the limit.
  /// Public so that the tests exercise it on Linux too.
  package static func closeEachBelowLimit(from first: CInt) {
    let limit = sysconf(CInt(_SC_OPEN_MAX))
    let last = limit > 0 ? CInt(clamping: limit) : 1024
    guard first < last else { return }
    for fd in first..<last { _ = close(fd) }
  }
}

/// What the allocator really gave a block, for footprint tests.
package enum AllocationSize {
  /// The usable bytes of the heap block at `pointer` (at least what was asked for); `nil` where the
  /// C library has no such call.
  ///
  /// glibc, Bionic and musl have `malloc_usable_size` (`<malloc.h>`, which their Swift modules do not
  /// import: looked up at run time); Darwin has `malloc_size` (`<malloc/malloc.h>`).
  package static func of(_ pointer: UnsafeRawPointer) -> Int? {
    #if canImport(Darwin)
      return malloc_size(pointer)
    #elseif canImport(Glibc) || canImport(Musl) || canImport(Android)
      typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
      guard let symbol = DynamicSymbol.address(of: "malloc_usable_size") else { return nil }
      return unsafeBitCast(symbol, to: UsableSize.self)(UnsafeMutableRawPointer(mutating: pointer))
    #else
      return nil
    #endif
  }
}

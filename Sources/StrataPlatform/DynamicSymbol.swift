/// C functions looked up at run time: those a C library module does not import (GNU extensions such as
/// `pipe2` and `closefrom`, `malloc.h`), or that older releases of the library lack.
package enum DynamicSymbol {
  /// The address of the function or variable `name` in the process's loaded images; `nil` when none
  /// has it.
  ///
  /// The corresponding C function is `dlsym` (`<dlfcn.h>`) with the default search handle,
  /// `RTLD_DEFAULT`: a null pointer on glibc, Bionic and musl, `(void *)-2` on Darwin (a macro with a
  /// cast, which Swift does not import).
  package static func address(of name: String) -> UnsafeMutableRawPointer? {
    #if canImport(Darwin)
      dlsym(UnsafeMutableRawPointer(bitPattern: -2), name)
    #else
      dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
    #endif
  }
}

/// The limits ``ParseOptions`` sets on files, applied to a layer that reads no file: the environment's
/// variables and the command line's options, one entry at a time.
///
/// An entry that names a key deeper than ``ParseOptions/maxDepth`` is ignored with an error naming it;
/// once the entries exceed ``ParseOptions/maxValues`` in number or ``ParseOptions/maxFileSize`` in bytes,
/// that entry and every later one are ignored, with one error naming the first. Everything recursive over
/// a tree (merging, converting, dumping) then meets no deeper tree than a file can give.
struct InputLimits {
  private let options: ParseOptions
  private var count = 0
  private var bytes = 0
  private var exhausted = false

  init(_ options: ParseOptions) {
    self.options = options
  }

  /// Whether an entry may be read; when it may not, an error is added to `diagnostics` (at most one for
  /// the entries past the count and size limits).
  /// - Parameters:
  ///   - depth: how many names the key it sets has.
  ///   - size: its bytes (name and value).
  ///   - entry: how messages name it (`environment variable X`, `option '--x'`), already shortened.
  ///   - path: the error's path (`env:X`, `arg:--x`).
  ///   - fix: what the user can do about it.
  mutating func admit(
    depth: Int, size: Int, entry: @autoclosure () -> String, path: @autoclosure () -> String, fix: String,
    diagnostics: inout [Diagnostic]
  ) -> Bool {
    guard !exhausted else { return false }
    count += 1
    bytes += size
    guard count > options.maxValues || bytes > options.maxFileSize || depth > options.maxDepth else {
      return true
    }
    let error: StrataError
    let (entry, path) = (entry(), path())
    if count > options.maxValues {
      exhausted = true
      error = StrataError(
        .tooManyValues,
        "\(entry) is past the limit of \(options.maxValues) values (ParseOptions.maxValues); it and the "
          + "ones after it are ignored (\(fix))", path: path)
    } else if bytes > options.maxFileSize {
      exhausted = true
      error = StrataError(
        .fileTooLarge,
        "\(entry) brings the text read past the limit of \(options.maxFileSize) bytes "
          + "(ParseOptions.maxFileSize); it and the ones after it are ignored (\(fix))", path: path)
    } else {
      error = StrataError(
        .nestingTooDeep,
        "\(entry) names a key \(depth) levels deep, deeper than the limit of \(options.maxDepth) "
          + "(ParseOptions.maxDepth); it is ignored (\(fix))", path: path)
    }
    diagnostics.append(Diagnostic(.error, error))
    return false
  }

  /// `text`, cut to its first 60 characters and `…` when longer, so that a hostile name stays readable.
  static func shortened(_ text: String) -> String {
    text.count <= 64 ? text : String(text.prefix(60)) + "…"
  }
}

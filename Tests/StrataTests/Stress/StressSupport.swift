import Foundation
import StrataPlatform

/// How much work the stress tests do: 1 normally, less under ThreadSanitizer (which slows everything
/// 5–15×); `STRATA_STRESS_SCALE` (a positive number) overrides either.
enum StressScale {
  /// Whether the process runs under ThreadSanitizer (its runtime is linked in).
  static let isThreadSanitized: Bool = DynamicSymbol.address(of: "__tsan_init") != nil

  /// The factor applied to iteration counts.
  static let factor: Double = {
    if let text = ProcessInfo.processInfo.environment["STRATA_STRESS_SCALE"], let value = Double(text),
      value > 0
    {
      return value
    }
    return isThreadSanitized ? 0.4 : 1
  }()

  /// `normal` scaled, at least `minimum`.
  static func count(_ normal: Int, minimum: Int = 1) -> Int {
    max(minimum, Int((Double(normal) * factor).rounded()))
  }
}

/// Replaces a file as editors and deployment tools do: a temporary file in the same directory, renamed
/// over it (the reader sees the old content or the new, never part of one).
func replaceFile(_ path: String, with text: String) throws {
  let temporary = path + ".edit~"
  try text.write(toFile: temporary, atomically: false, encoding: .utf8)
  guard rename(temporary, path) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
}

/// A number of bytes, as settings write it: `10MB`, `512KiB`, `1.5GiB`, `64Ki`, or a bare `4096`.
///
/// Declare a setting of this type as you would an `Int` or a `Duration`:
///
/// <!-- snippet: Tests/DocSnippets/DeclarationsSnippets.swift#ByteSize -->
/// ```swift
/// struct UploadSettings: SettingsGroup {
///   @Setting var maxBody = ByteSize(bytes: 10 << 20)
///   @Setting var spoolThreshold = ByteSize(bytes: 512 << 10)
/// }
/// ```
///
/// Both kinds of unit are read, each exactly as its standard defines it, so that a value never means
/// something its writer did not: the SI units `kB`, `MB`, `GB`, `TB`, `PB`, `EB` are powers of 1000
/// (`10MB` is 10,000,000 bytes) and the IEC units `KiB`, `MiB`, `GiB`, `TiB`, `PiB`, `EiB` (or
/// Kubernetes' `Ki`, `Mi`, …) powers of 1024 (`10MiB` is 10,485,760 bytes). A lone `K`, `M` or `G` is
/// refused: systemd and nginx read it as 1024ⁿ, Kubernetes as 1000ⁿ, and the setting's error says how to
/// write either. Units ignore case (`mb` is `MB`; a size is bytes, never bits), a space may stand between
/// the number and its unit, and a number may have a fraction when the result is a whole number of bytes
/// (`1.5KiB` is 1,536; `0.1KiB` is refused). A bare number is bytes. Negative sizes and sizes beyond
/// `Int.max` bytes are refused.
///
/// A size is written (by a record's `save(_:)`, by `config-dump`) in the largest
/// unit that holds it exactly, IEC first: `10MiB`, `1MB`, `1500B`.
public struct ByteSize: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  /// The number of bytes, never negative.
  public let bytes: Int

  /// A size of `bytes` bytes; `bytes` must not be negative.
  public init(bytes: Int) {
    precondition(bytes >= 0, "a ByteSize is never negative (\(bytes) bytes)")
    self.bytes = bytes
  }

  /// The size in the largest unit that holds it exactly: `10MiB`, `1MB`, `1500B`, `0B`.
  public var description: String { ByteSizeText.format(bytes) }

  /// Whether `lhs` is fewer bytes than `rhs`.
  public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }
}

/// The text form of a ``ByteSize`` in settings: `10MB`, `512KiB`, `1.5GiB`, `64Ki`, `4096`.
///
/// A number (digits, with an optional decimal fraction), optional spaces, and an optional unit, with
/// whitespace around the whole ignored. See ``ByteSize`` for the units and why a lone `K` is refused.
enum ByteSizeText {
  /// Why text is not a size.
  enum Failure: Error {
    /// Not a number with a unit.
    case malformed
    /// A unit that means 1000ⁿ to some readers and 1024ⁿ to others (`K`, `M`, `G`, …).
    case ambiguousUnit
    /// A fraction that does not come to a whole number of bytes (`0.1KiB`).
    case notWhole
    /// More than `Int.max` bytes.
    case outOfRange
    /// A minus sign.
    case negative
  }

  /// The longest text read; longer text is refused as malformed before it is looked at.
  static let maxLength = 64

  /// The units, by their lowercased names: `b`, the SI units (1000ⁿ) and the IEC units (1024ⁿ).
  private static let units: [String: Int] = {
    var units = ["b": 1]
    var si = 1
    var iec = 1
    for prefix in ["k", "m", "g", "t", "p", "e"] {
      si *= 1000
      iec *= 1024
      units[prefix + "b"] = si
      units[prefix + "ib"] = iec
      units[prefix + "i"] = iec
    }
    return units
  }()

  /// The units written by ``format(_:)``, largest first.
  private static let writtenUnits: [(name: String, bytes: Int)] =
    [
      ("EiB", 1 << 60), ("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20),
      ("KiB", 1 << 10),
    ]
    + [
      ("EB", 1_000_000_000_000_000_000), ("PB", 1_000_000_000_000_000), ("TB", 1_000_000_000_000),
      ("GB", 1_000_000_000), ("MB", 1_000_000), ("kB", 1_000),
    ]

  /// The number of bytes `text` says.
  static func parse(_ text: String) throws(Failure) -> Int {
    let scalars = Array(DurationText.trimmed(text).unicodeScalars)
    guard !scalars.isEmpty, scalars.count <= maxLength else { throw .malformed }
    if scalars[0] == "-" { throw .negative }
    var i = scalars[0] == "+" ? 1 : 0
    var whole: [Unicode.Scalar] = []
    var fraction: [Unicode.Scalar] = []
    while i < scalars.count, isDigit(scalars[i]) {
      whole.append(scalars[i])
      i += 1
    }
    if i < scalars.count, scalars[i] == "." {
      i += 1
      while i < scalars.count, isDigit(scalars[i]) {
        fraction.append(scalars[i])
        i += 1
      }
      guard !fraction.isEmpty else { throw .malformed }
    }
    guard !whole.isEmpty else { throw .malformed }
    while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" { i += 1 }
    let unitName = String(String.UnicodeScalarView(scalars[i...])).lowercased()
    let unit: Int
    if unitName.isEmpty {
      unit = 1
    } else if let known = units[unitName] {
      unit = known
    } else if ["k", "m", "g", "t", "p", "e"].contains(unitName) {
      throw .ambiguousUnit
    } else {
      throw .malformed
    }
    return try bytes(whole: whole, fraction: fraction, unit: unit)
  }

  /// `whole.fraction × unit`, exactly.
  private static func bytes(whole: [Unicode.Scalar], fraction: [Unicode.Scalar], unit: Int) throws(Failure)
    -> Int
  {
    // The fraction's trailing zeros say nothing; without them, `digits / 10^scale` is the number.
    var fraction = fraction
    while fraction.last == "0" { fraction.removeLast() }
    var digits = 0
    for scalar in whole + fraction {
      let (times, overflow) = digits.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int(scalar.value - 48))
      // Leading zeros never overflow; past Int.max the size is out of range whatever the scale.
      guard !overflow, !overflow2 else { throw .outOfRange }
      digits = sum
    }
    var scale = 1
    for _ in fraction {
      let (next, overflow) = scale.multipliedReportingOverflow(by: 10)
      guard !overflow else { throw .notWhole }
      scale = next
    }
    // digits × unit / scale must be whole: divide out what the two share first, so that no exact size
    // overflows on the way.
    let shared = gcd(unit, scale)
    let (reducedUnit, reducedScale) = (unit / shared, scale / shared)
    guard digits % reducedScale == 0 else { throw .notWhole }
    let (result, overflow) = (digits / reducedScale).multipliedReportingOverflow(by: reducedUnit)
    guard !overflow else { throw .outOfRange }
    return result
  }

  /// `bytes` in the largest unit that holds it exactly, IEC units first: `10MiB`, `1MB`, `1500B`.
  static func format(_ bytes: Int) -> String {
    guard bytes != 0 else { return "0B" }
    for unit in writtenUnits where bytes % unit.bytes == 0 {
      return "\(bytes / unit.bytes)\(unit.name)"
    }
    return "\(bytes)B"
  }

  /// What a size looks like, for messages about one that is not.
  static let forms =
    "write it as 10MB (10^6 bytes) or 10MiB (2^20 bytes): kB, MB, GB, TB, PB, EB are powers of 1000, "
    + "KiB, MiB, GiB, TiB, PiB, EiB (or Ki, Mi, …) powers of 1024; a bare number is bytes"

  private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }

  private static func gcd(_ a: Int, _ b: Int) -> Int {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
  }
}

/// How many terminal columns text takes: East Asian wide and fullwidth characters and emoji take two,
/// combining marks and zero-width characters none, everything else one (as `wcwidth` counts, without
/// the C library's locale).
enum DisplayWidth {
  static func of(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + of($1) }
  }

  static func of(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value == 0 { return 0 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if (0xFE00...0xFE0F).contains(value) || (0x1160...0x11FF).contains(value)
      || (0xD7B0...0xD7FF).contains(value)
    {
      return 0
    }
    return isWide(value) || scalar.properties.isEmojiPresentation ? 2 : 1
  }

  private static func isWide(_ value: UInt32) -> Bool {
    (0x1100...0x115F).contains(value) || (0x2E80...0x303E).contains(value)
      || (0x3041...0x33FF).contains(value)
      || (0x3400...0x4DBF).contains(value) || (0x4E00...0x9FFF).contains(value)
      || (0xA000...0xA4CF).contains(value) || (0xAC00...0xD7A3).contains(value)
      || (0xF900...0xFAFF).contains(value) || (0xFE30...0xFE4F).contains(value)
      || (0xFF00...0xFF60).contains(value) || (0xFFE0...0xFFE6).contains(value)
      || (0xA960...0xA97F).contains(value) || (0x16FE0...0x16FE4).contains(value)
      || (0x17000...0x18CFF).contains(value) || (0x1B000...0x1B2FF).contains(value)
      || (0x20000...0x2FFFD).contains(value) || (0x30000...0x3FFFD).contains(value)
  }

  /// `text` cut to at most `width` columns, ending in `…` when something was cut.
  static func truncated(_ text: String, to width: Int) -> String {
    guard of(text) > width else { return text }
    var out = ""
    var used = 0
    for scalar in text.unicodeScalars {
      let w = of(scalar)
      if used + w > width - 1 { break }
      out.unicodeScalars.append(scalar)
      used += w
    }
    return out + "…"
  }
}

extension String {
  /// The text with control characters escaped (`\n`, `\t`, `\r`, else `\u{1b}`), so that one value or
  /// message prints on one line and cannot forge a line of its own (a variable name holding a newline
  /// must not add a fake `--check` line).
  var escapingControlCharacters: String {
    guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
    var out = ""
    for scalar in unicodeScalars {
      switch scalar {
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      case _ where scalar.isControlCharacter: out += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

extension Unicode.Scalar {
  /// C0 controls, DEL and C1 controls.
  fileprivate var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

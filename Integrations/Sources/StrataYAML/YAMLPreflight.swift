import Strata

/// A pass over a YAML file's bytes before Yams composes it, for what Yams cannot be asked to bound.
///
/// Yams composes a document by recursion, one level per nesting level, so that `[[[[…` a million deep
/// would overflow the stack; and it compares the keys of each mapping by hashing them whole, so that a
/// key that is an alias of a document of aliases (a billion-laughs key) would take exponential time.
/// This pass refuses both without parsing YAML: it bounds the nesting from above (each space of
/// indentation, each block `- ` and `? ` of a line, its first block `: `, and each open flow bracket
/// counts as a level, so
/// that no document deeper than the limit passes, and documents far shallower than it, all real ones,
/// do), and it refuses what can make a key other than a plain or quoted string (an alias, a flow
/// collection, an explicit `? ` key not followed by a scalar on its line), which Strata refuses anyway
/// (a key is a name).
///
/// Quoted scalars, comments and block scalars (`|`, `>`) are skipped, so that their text is not taken
/// for structure.
struct YAMLPreflight {
  private let bytes: [UInt8]
  private let path: String
  private let maxDepth: Int
  private var index = 0
  private var line = 1
  private var lineStart = 0
  private var flowDepth = 0
  /// Aliases (`*name`) found, for the message of a document that expands past its limit.
  private var aliases = 0

  private init(bytes: [UInt8], path: String, maxDepth: Int) {
    self.bytes = bytes
    self.path = path
    self.maxDepth = maxDepth
  }

  /// Checks a file's bytes; returns whether the document has an alias (`*name`).
  /// - Throws: `nestingTooDeep` when the nesting may pass `maxDepth`; `typeMismatch` for a key that
  ///   is an alias or a collection, or an explicit `? ` key not followed by a scalar on its line.
  static func check(_ bytes: [UInt8], path: String, maxDepth: Int) throws(StrataError) -> Bool {
    var pass = YAMLPreflight(bytes: bytes, path: path, maxDepth: maxDepth)
    try pass.run()
    return pass.aliases > 0
  }

  private func error(_ code: StrataError.Code, _ message: String, at offset: Int) -> StrataError {
    StrataError(code, message, path: path, line: line, column: offset - lineStart + 1)
  }

  private func byte(_ offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

  private static func isBlank(_ byte: UInt8?) -> Bool {
    byte == nil || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  private static func isFlowIndicator(_ byte: UInt8?) -> Bool {
    byte == UInt8(ascii: ",") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
      || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}")
  }

  private static func isAnchorCharacter(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
      || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
  }

  /// Whether a `:` at an offset is a mapping's value indicator.
  private func isValueIndicator(at offset: Int) -> Bool {
    guard byte(offset) == UInt8(ascii: ":") else { return false }
    let next = byte(offset + 1)
    return Self.isBlank(next) || (flowDepth > 0 && Self.isFlowIndicator(next))
  }

  /// Whether a scalar (plain, quoted or block) starts at an offset of a line: not a flow collection, an
  /// alias, an anchor, a tag, a comment, a block indicator, or the line's end.
  private func startsScalar(at offset: Int, lineEnd: Int) -> Bool {
    guard offset < lineEnd, let first = byte(offset), first != 0x0D else { return false }
    if "[{*&!#".utf8.contains(first) { return false }
    if "-?:".utf8.contains(first) && Self.isBlank(byte(offset + 1)) { return false }
    return true
  }

  /// The offset of the first byte after spaces and tabs.
  private func skippingSpaces(from offset: Int) -> Int {
    var offset = offset
    while let next = byte(offset), next == 0x20 || next == 0x09 { offset += 1 }
    return offset
  }

  private mutating func run() throws(StrataError) {
    var quote: UInt8? = nil
    var blockScalarParent: Int? = nil
    while index < bytes.count {
      // One line: its indentation, then its tokens.
      lineStart = index
      var end = index
      while end < bytes.count && bytes[end] != 0x0A { end += 1 }
      defer {
        index = end + 1
        line += 1
      }
      var cursor = index
      while cursor < end && bytes[cursor] == 0x20 { cursor += 1 }
      let indent = cursor - index
      if let parent = blockScalarParent {
        if cursor >= end || bytes[cursor] == 0x0D || indent > parent { continue }
        blockScalarParent = nil
      }
      var levels = indent
      var countedValueIndicator = false
      // `tokenStart`: after a blank (where `#` starts a comment). `nodeStart`: where a node may begin
      // (the line's start, after `- `, `? `, `: `, and in a flow collection after `[`, `{`, `,`), the
      // only place where `[`, `{`, `*`, `&`, `!`, `?`, `-`, `|`, `>` and a quote are indicators: inside
      // a plain scalar they are text (`q: sure ?`, `ps: x [a]::b`).
      var tokenStart = true
      var nodeStart = true
      while cursor < end {
        let current = bytes[cursor]
        if let open = quote {
          if current == open {
            if open == UInt8(ascii: "'") && byte(cursor + 1) == open {
              cursor += 2
              continue
            }
            quote = nil
            tokenStart = false
          } else if open == UInt8(ascii: "\"") && current == UInt8(ascii: "\\") {
            cursor += 1
          }
          cursor += 1
          continue
        }
        let isOpen = current == UInt8(ascii: "[") || current == UInt8(ascii: "{")
        let isClose = current == UInt8(ascii: "]") || current == UInt8(ascii: "}")
        if current == 0x20 || current == 0x09 || current == 0x0D {
          tokenStart = true
        } else if current == UInt8(ascii: "#") && tokenStart {
          cursor = end
          continue
        } else if (current == UInt8(ascii: "'") || current == UInt8(ascii: "\"")) && nodeStart {
          quote = current
          tokenStart = false
          nodeStart = false
        } else if isOpen && (nodeStart || flowDepth > 0) {
          flowDepth += 1
          try checkDepth(levels + flowDepth, at: cursor)
          tokenStart = true
          nodeStart = true
        } else if isClose && flowDepth > 0 {
          flowDepth -= 1
          tokenStart = false
          nodeStart = false
          if byte(skippingSpaces(from: cursor + 1)) == UInt8(ascii: ":") {
            throw error(.typeMismatch, "a sequence or mapping as a key; a key must be a string", at: cursor)
          }
        } else if (current == UInt8(ascii: "&") || current == UInt8(ascii: "!")) && nodeStart {
          // An anchor or a tag: the node it belongs to starts after it.
          while let next = byte(cursor), !Self.isBlank(next), flowDepth == 0 || !Self.isFlowIndicator(next) {
            cursor += 1
          }
          tokenStart = false
          continue
        } else if current == UInt8(ascii: "*") && nodeStart {
          aliases += 1
          nodeStart = false
          var nameEnd = cursor + 1
          while let next = byte(nameEnd), Self.isAnchorCharacter(next) { nameEnd += 1 }
          if isValueIndicator(at: skippingSpaces(from: nameEnd)) {
            throw error(
              .typeMismatch, "an alias as a key; write the key itself (a key must be a string)", at: cursor)
          }
          cursor = nameEnd
          tokenStart = false
          continue
        } else if current == UInt8(ascii: "?") && nodeStart && Self.isBlank(byte(cursor + 1)) {
          // An explicit key: fine before a scalar on its line (libyaml writes keys of more than 128
          // characters so), refused before anything that can start a collection or an alias.
          let next = skippingSpaces(from: cursor + 1)
          if !startsScalar(at: next, lineEnd: end) {
            throw error(
              .typeMismatch,
              "an explicit key ('? ') that is not a string on its line; write 'key: value' (a key must be a string)",
              at: cursor)
          }
          levels += 1
          try checkDepth(levels + flowDepth, at: cursor)
          tokenStart = true
        } else if current == UInt8(ascii: "-") && nodeStart && flowDepth == 0
          && Self.isBlank(byte(cursor + 1))
        {
          levels += 1
          try checkDepth(levels, at: cursor)
          tokenStart = true
        } else if current == UInt8(ascii: ":") && isValueIndicator(at: cursor) {
          // A block mapping's value can open one more level on its line; in a flow collection the
          // brackets count the levels, and a long `{a: 1, b: 2, …}` on one line is one level.
          if flowDepth == 0 && !countedValueIndicator {
            countedValueIndicator = true
            levels += 1
            try checkDepth(levels, at: cursor)
          }
          tokenStart = true
          nodeStart = true
        } else if (current == UInt8(ascii: "|") || current == UInt8(ascii: ">")) && nodeStart
          && flowDepth == 0
        {
          // A block scalar: the lines indented deeper than this one are its text.
          blockScalarParent = indent
          cursor = end
          continue
        } else if current == UInt8(ascii: "%") && cursor == lineStart {
          cursor = end
          continue
        } else if current == UInt8(ascii: ",") {
          tokenStart = flowDepth > 0
          nodeStart = flowDepth > 0
        } else {
          tokenStart = false
          nodeStart = false
        }
        cursor += 1
      }
    }
  }

  private func checkDepth(_ levels: Int, at offset: Int) throws(StrataError) {
    if levels > maxDepth {
      throw error(
        .nestingTooDeep,
        "nesting may pass \(maxDepth) levels here (ParseOptions.maxDepth; each space of indentation and "
          + "each open bracket counts as one)", at: offset)
    }
  }
}

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads an XML property list byte by byte, giving every node the line and column of its opening `<`.
///
/// Nesting lives on an explicit stack instead of the call stack, so 100,000 nested `<array>` elements end
/// in `nestingTooDeep` rather than overflowing the small stacks of test and worker threads.
struct XMLPropertyListParser {
  let bytes: UnsafeBufferPointer<UInt8>
  let path: String
  private let maxDepth: Int
  /// The file, which plain ASCII `<string>` values are kept as slices of (`nil`: each is a `String`).
  private let source: SourceText?
  var index = 0
  var lines = LineCounter()
  /// Warnings found while parsing (duplicate keys).
  private(set) var diagnostics = CappedDiagnostics()
  /// The keys read so far, so that a name repeated in every dict is made once.
  private var keys = KeyInterner()
  /// The room a new dict's table starts with (see ``TableBuilder/capacity(after:minimum:)``).
  private var tableCapacity = 8

  /// An open container, with what it has collected so far.
  fileprivate struct Frame {
    var element: PropertyListElement
    var start: Int
    var origin: Origin
    var items: [SettingValue] = []
    var table = TableBuilder()
    var key: String?
    /// The key's ``KeyHash``.
    var keyHash: UInt32 = 0
    var keyStart = 0
    /// The key's line and column, taken when it is read (in file order, so the line counter only moves
    /// forward) for a duplicate-key warning.
    var keyPosition = (line: 0, column: 0)
  }

  /// Parses a document's bytes. The parser, which holds a pointer into them, lives only inside this
  /// call (its initializer is private), so the pointer never outlives the buffer.
  /// - Parameter source: the file `bytes` points into, when values may be slices of it.
  static func parse(
    _ bytes: UnsafeBufferPointer<UInt8>, path: String, maxDepth: Int, source: SourceText? = nil
  )
    throws(StrataError) -> (root: SettingValue, diagnostics: [Diagnostic])
  {
    var parser = XMLPropertyListParser(bytes: bytes, path: path, maxDepth: maxDepth, source: source)
    let root = try parser.parse()
    return (root, parser.diagnostics.all)
  }

  private init(bytes: UnsafeBufferPointer<UInt8>, path: String, maxDepth: Int, source: SourceText?) {
    self.bytes = bytes
    self.path = path
    self.maxDepth = maxDepth
    self.source = source
  }

  /// Parses the whole input and returns the value inside `<plist>` (or the bare root element).
  mutating func parse() throws(StrataError) -> SettingValue {
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    var stack: [Frame] = []
    var depth = 0
    var root: SettingValue?
    while root == nil {
      try skipMisc(allowDoctype: stack.isEmpty)
      guard index < bytes.count else {
        if let top = stack.last {
          throw error(
            .unexpectedEnd, "unterminated <\(top.element.name)>: the file ends before its closing tag",
            at: top.start)
        }
        throw error(.unexpectedEnd, "the file holds no property list element", at: index)
      }
      let start = index
      guard bytes[index] == .lt else {
        let place = stack.last.map { "inside <\($0.element.name)>" } ?? "outside the root element"
        throw error(.syntax, "unexpected text \(place)", at: index)
      }
      if byte(at: index + 1) == .slash {
        let name = try readCloseTag()
        // Fields are read through the array, never `stack.last`: a copy of a frame retains its arrays.
        guard !stack.isEmpty, PropertyListElement(name, in: bytes) == stack[stack.count - 1].element else {
          let expected = stack.last.map { "</\($0.element.name)>" } ?? "no closing tag"
          throw error(.syntax, "mismatched closing tag </\(text(name))>; expected \(expected)", at: start)
        }
        var frame = stack.removeLast()
        let value: SettingValue
        switch frame.element {
        case .dict:
          if frame.key != nil { throw keyWithoutValue(at: frame.keyStart) }
          tableCapacity = TableBuilder.capacity(after: frame.table.count)
          value = SettingValue(.table(frame.table.build()), origin: frame.origin)
          depth -= 1
        case .array:
          value = SettingValue(.array(frame.items), origin: frame.origin)
          depth -= 1
        default:
          guard let only = frame.items.first else {
            throw error(
              .syntax, "empty <plist>: the top level of a property list must be a <dict>", at: start)
          }
          value = only
        }
        if stack.isEmpty { root = value } else { try deliver(value, to: &stack) }
        continue
      }
      if byte(at: index + 1) == .bang {
        throw error(
          .syntax, "unexpected markup \(hasPrefix("<![CDATA[") ? "CDATA " : "")outside a string", at: start)
      }
      let (name, selfClosing) = try readOpenTag()
      guard let element = PropertyListElement(name, in: bytes) else {
        throw error(.invalidPropertyList, "unknown element <\(text(name))>", at: start)
      }
      if element == .plist {
        guard stack.isEmpty else {
          throw error(.invalidPropertyList, "<plist> inside another element", at: start)
        }
        if selfClosing {
          throw error(.syntax, "empty <plist>: the top level of a property list must be a <dict>", at: start)
        }
        stack.append(Frame(element: .plist, start: start, origin: origin(at: start)))
        continue
      }
      if element == .key {
        guard !stack.isEmpty, stack[stack.count - 1].element == .dict else {
          throw error(.invalidPropertyList, "<key> outside a <dict>", at: start)
        }
        if stack[stack.count - 1].key != nil { throw keyWithoutValue(at: stack[stack.count - 1].keyStart) }
        let content: Content = selfClosing ? .span(start..<start) : try readText(of: element, start: start)
        let hash = keyHash(content)
        let key: String
        if case .span(let range) = content, hash != 0 {
          key = keys.key(UnsafeBufferPointer(rebasing: bytes[range]), hash: hash)  // ASCII: valid
        } else {
          key = try string(content)
        }
        stack[stack.count - 1].key = key
        stack[stack.count - 1].keyHash = hash
        stack[stack.count - 1].keyStart = start
        stack[stack.count - 1].keyPosition = lines.position(of: start, in: bytes)
        continue
      }
      if !stack.isEmpty {
        let top = stack.count - 1
        if stack[top].element == .dict, stack[top].key == nil {
          throw error(
            .invalidPropertyList, "<\(element.name)> in a <dict> without a <key> before it", at: start)
        }
        if stack[top].element == .plist, !stack[top].items.isEmpty {
          throw error(.invalidPropertyList, "a second value in <plist>; it holds exactly one", at: start)
        }
      }
      if element == .string, !selfClosing, let source {
        // Plain ASCII text is kept as a slice of the file: no `String` until it is read.
        let content = try readText(of: element, start: start)
        let (line, column) = lines.position(of: start, in: bytes)
        let value: SettingValue
        if case .span(let range) = content, ASCIIBytes.all(UnsafeBufferPointer(rebasing: bytes[range])) {
          value = SettingValue(
            text: source, start: range.lowerBound, end: range.upperBound, line: line, column: column)
        } else {
          value = SettingValue(
            .string(try string(content)), origin: .file(path: path, line: line, column: column))
        }
        if stack.isEmpty { root = value } else { try deliver(value, to: &stack) }
        continue
      }
      let origin = origin(at: start)
      let kind: SettingValue.Kind
      switch element {
      case .dict, .array:
        guard depth < maxDepth else {
          throw error(.nestingTooDeep, "arrays and dicts nested deeper than \(maxDepth) levels", at: start)
        }
        if selfClosing {
          kind = element == .dict ? .table(SettingTable()) : .array([])
        } else {
          depth += 1
          var frame = Frame(element: element, start: start, origin: origin)
          if element == .dict { frame.table = TableBuilder(capacity: tableCapacity) }
          stack.append(frame)
          continue
        }
      case .true, .false:
        if !selfClosing { try readEmptyContent(of: element) }
        kind = .bool(element == .true)
      case .string:
        kind = .string(selfClosing ? "" : try string(readText(of: element, start: start)))
      case .data:
        kind = .data(selfClosing ? Data() : try scalar(readText(of: element, start: start), decodeBase64))
      default:
        guard !selfClosing else {
          throw error(.invalidPropertyList, "empty <\(element.name)/> has no value", at: start)
        }
        let content = try readText(of: element, start: start)
        switch element {
        case .integer: kind = try scalar(content, parseInteger)
        case .real: kind = .double(try scalar(content, parseReal))
        default: kind = .date(try scalar(content, parseDate))
        }
      }
      let value = SettingValue(kind, origin: origin)
      if stack.isEmpty { root = value } else { try deliver(value, to: &stack) }
    }
    try skipMisc(allowDoctype: false)
    if index < bytes.count {
      throw error(.syntax, "unexpected content after the end of the property list", at: index)
    }
    return root!
  }

  /// Adds a finished value to the innermost open container.
  private mutating func deliver(_ value: consuming SettingValue, to stack: inout [Frame]) throws(StrataError)
  {
    let last = stack.count - 1
    guard stack[last].element == .dict else {
      stack[last].items.append(consume value)
      return
    }
    let key = stack[last].key!
    let repeated = stack[last].table.set(key, consume value, hash: stack[last].keyHash) != nil
    stack[last].key = nil
    if repeated {
      let (line, column) = stack[last].keyPosition
      diagnostics.append(
        Diagnostic(
          .warning,
          StrataError(
            .duplicateKey, "duplicate key \"\(key)\"; the last value wins", path: path, line: line,
            column: column)))
    }
  }
}

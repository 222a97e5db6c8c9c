// Path arithmetic: the one place that takes paths apart and puts them together, on their text only
// (`FileSystem` is the one place that asks the disk about them).
//
// The functions work on the UTF-8 bytes and split at each `/` byte, as the kernel does: a `/` followed
// by a combining mark is a separator here as on disk, and no `Character` is formed for a path's every
// byte (these run for every file of every reload).

/// Joins a directory and a name with exactly one `/` (the name is taken as relative, whatever it is).
func joinPath(_ directory: String, _ name: String) -> String {
  if directory.isEmpty { return name }
  return directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

/// `name` as seen from `directory`: `name` itself when it is absolute, else `directory/name`; without
/// `.` components or doubled slashes (`..` stays: ``normalizedPath(_:)`` resolves it).
func joinRelative(_ directory: String, _ name: String) -> String {
  let full = name.hasPrefix("/") || directory.isEmpty ? name : directory + "/" + name
  let absolute = full.hasPrefix("/")
  let kept = full.utf8.split(separator: UInt8(ascii: "/")).filter { !$0.elementsEqual(".".utf8) }
  let joined = kept.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
  return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
}

/// The directory part of a path, as POSIX `dirname` answers for a path without a trailing slash:
/// `/etc/demo` for `/etc/demo/demo.ini`, `/` for `/demo.ini`, and `.` for a bare name (`demo.ini`, or
/// the empty path): the directory a relative name is opened in, which every caller can open, list,
/// create files in or join a name to (an empty answer would be none of these).
func directoryPart(of path: String) -> String {
  let utf8 = path.utf8
  guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
  return slash == utf8.startIndex ? "/" : String(decoding: utf8[..<slash], as: UTF8.self)
}

/// The last non-empty component (`b.ini` of `/a/b.ini` and of `/a/b.ini/`), or all of `path` when it has
/// none (`/`, the empty path).
func lastComponent(of path: String) -> Substring {
  let utf8 = path.utf8
  let slash = UInt8(ascii: "/")
  var end = utf8.endIndex
  while end > utf8.startIndex, utf8[utf8.index(before: end)] == slash { end = utf8.index(before: end) }
  guard end > utf8.startIndex else { return path[...] }
  var start = end
  while start > utf8.startIndex, utf8[utf8.index(before: start)] != slash {
    start = utf8.index(before: start)
  }
  // Both ends sit next to a `/` byte or at an end of the string, so on scalar boundaries.
  return path[start..<end]
}

/// The extension of the last path component, lower-cased, without the dot; `nil` if there is none (a
/// dotfile's leading dot does not start one).
func fileExtension(of path: String) -> String? {
  let name = lastComponent(of: path).utf8
  guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return nil }
  return lowercasedASCII(name[name.index(after: dot)...])
}

/// For a dotfile with no other dot (`.env`), the name after the dot, lower-cased; else `nil`.
func dotfileExtension(of path: String) -> String? {
  let name = lastComponent(of: path).utf8
  guard name.first == UInt8(ascii: "."), name.count > 1 else { return nil }
  let rest = name.dropFirst()
  guard !rest.contains(UInt8(ascii: ".")) else { return nil }
  return lowercasedASCII(rest)
}

/// `bytes` as a string, lower-cased; without Unicode case mapping when they are lower-case ASCII
/// already (`ini`, `json`).
private func lowercasedASCII(_ bytes: Substring.UTF8View.SubSequence) -> String {
  let text = String(decoding: bytes, as: UTF8.self)
  let isLowerASCII = bytes.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
  return isLowerASCII ? text : text.lowercased()
}

/// Whether `path` is `directory` or lies below it (both normalized).
func isPath(_ path: String, inside directory: String) -> Bool {
  directory == "/" || path == directory || path.hasPrefix(directory + "/")
}

/// Whether `path` has a `..` component.
func hasParentComponent(_ path: String) -> Bool {
  var path = path
  return path.withUTF8 { bytes in
    var found = false
    forEachComponent(of: bytes) { part in
      found = isParentComponent(part, in: bytes)
      return !found
    }
    return found
  }
}

/// Calls `body` with the range of each component of `bytes` (the runs between `/` bytes, empty ones
/// included), in order, until it returns `false`.
private func forEachComponent(of bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) -> Bool) {
  var start = 0
  while start < bytes.count {
    var end = start
    while end < bytes.count && bytes[end] != UInt8(ascii: "/") { end += 1 }
    guard body(start..<end) else { return }
    start = end + 1
  }
}

/// Whether the component `part` of `bytes` is `..`.
private func isParentComponent(_ part: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  part.count == 2 && bytes[part.lowerBound] == UInt8(ascii: ".")
    && bytes[part.lowerBound + 1] == UInt8(ascii: ".")
}

/// `path` with `.` components and doubled slashes dropped and `..` resolved lexically (a leading `..`
/// of a relative path stays), for comparing paths.
///
/// It runs several times for every file a trust check reads, so it allocates only the result.
func normalizedPath(_ path: String) -> String {
  var path = path
  return path.withUTF8 { bytes in
    let slash = UInt8(ascii: "/")
    let dot = UInt8(ascii: ".")
    // The kept components, as ranges of `bytes`.
    var parts: [Range<Int>] = []
    forEachComponent(of: bytes) { part in
      let start = part.lowerBound
      if part.isEmpty || (part.count == 1 && bytes[start] == dot) {
        // An empty or `.` component.
      } else if isParentComponent(part, in: bytes), let last = parts.last, !isParentComponent(last, in: bytes)
      {
        parts.removeLast()
      } else {
        parts.append(part)
      }
      return true
    }
    let isAbsolute = bytes.first == slash
    var capacity = isAbsolute ? 1 : 0
    for part in parts { capacity += part.count + 1 }
    return String(unsafeUninitializedCapacity: capacity) { output in
      var count = 0
      if isAbsolute {
        output[0] = slash
        count = 1
      }
      for index in parts.indices {
        if index > 0 {
          output[count] = slash
          count += 1
        }
        var byte = parts[index].lowerBound
        while byte < parts[index].upperBound {
          output[count] = bytes[byte]
          count += 1
          byte += 1
        }
      }
      return count
    }
  }
}

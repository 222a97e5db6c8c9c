/// A type's name as a user writes it: `Int`, `[String]`, `String?`, `[String: Int]`.
func describeType(_ type: Any.Type) -> String {
  sugared(String(describing: type))
}

/// Rewrites `Array<X>`, `Optional<X>` and `Dictionary<K, V>` in a type name into their sugared forms.
func sugared(_ name: String) -> String {
  guard let open = name.firstIndex(of: "<"), name.hasSuffix(">") else { return name }
  let base = name[..<open]
  let inner = name[name.index(after: open)..<name.index(before: name.endIndex)]
  // Split the generic arguments at top-level commas.
  var arguments: [String] = []
  var depth = 0
  var current = ""
  for character in inner {
    if character == "<" { depth += 1 }
    if character == ">" { depth -= 1 }
    if character == "," && depth == 0 {
      arguments.append(current.filter { $0 != " " })
      current = ""
    } else {
      current.append(character)
    }
  }
  arguments.append(current.filter { $0 != " " })
  let parts = arguments.map(sugared)
  switch (base, parts.count) {
  case ("Array", 1): return "[\(parts[0])]"
  case ("Optional", 1): return parts[0] + "?"
  case ("Dictionary", 2): return "[\(parts[0]): \(parts[1])]"
  default: return base + "<" + parts.joined(separator: ", ") + ">"
  }
}

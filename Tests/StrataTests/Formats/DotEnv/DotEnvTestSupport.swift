@testable import Strata

/// The string at `key` of a parsed dotenv text, or `nil`.
func dotEnvString(_ document: Document, _ key: String) -> String? {
  guard case .string(let text)? = document.root.value(at: key)?.kind else { return nil }
  return text
}

/// Every leaf of a parsed dotenv text as `key → string`, in order.
func dotEnvLeaves(_ text: String) throws -> [String: String] {
  var leaves: [String: String] = [:]
  try parse(text, as: DotEnvFormat()).root.forEachLeaf { key, value in
    if case .string(let string) = value.kind { leaves[key] = string }
  }
  return leaves
}

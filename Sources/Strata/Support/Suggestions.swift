/// "Did you mean" for keys and variable names.
package enum Suggestions {
  /// The candidate closest to `word`: one equal but for letter case first, else the nearest within two
  /// edits (by Levenshtein distance, comparing whole keys and their last components), else `nil`.
  package static func closest(to word: String, in candidates: [String]) -> String? {
    let lowered = word.lowercased()
    if let match = candidates.first(where: { $0.lowercased() == lowered }) { return match }
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let distance = editDistance(candidate, word, limit: 2)
      if distance <= 2 && distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.candidate
  }

  /// The Levenshtein distance between two strings, or `limit + 1` once it is known to exceed `limit`.
  static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
    let a = Array(a.utf8)
    let b = Array(b.utf8)
    if abs(a.count - b.count) > limit { return limit + 1 }
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...a.count {
      current[0] = i
      var rowMinimum = i
      for j in 1...b.count {
        current[j] = min(
          previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        rowMinimum = min(rowMinimum, current[j])
      }
      if rowMinimum > limit { return limit + 1 }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}

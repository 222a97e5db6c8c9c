import Foundation
import Testing

@testable import Strata

/// The corpus (toml-test's TOML 1.0 cases, real pyproject.toml / Cargo.toml files, seeded generated
/// documents and mutants of them) and what Python's tomllib says of each file, written by
/// `Scripts/toml-oracle.py expect` into `oracle.json`.
private let corpusDirectory = repositoryRoot + "/Tests/StrataTests/Formats/TOML/Corpus"

@Suite struct TOMLCorpusTests {
  /// What the comparison found.
  struct Tally {
    var validAgree = 0
    var invalidRefused = 0
    var disagreements: [String] = []
  }

  @Test func everyCorpusFileLoadsAsTomllibLoadsItOrIsRefusedAsTomllibRefusesIt() throws {
    let tally = try Self.compareCorpus()
    print(
      "TOML corpus: \(tally.validAgree) valid agree, \(tally.invalidRefused) invalid refused, "
        + "\(tally.disagreements.count) disagree")
    #expect(tally.disagreements.isEmpty, "\(tally.disagreements.prefix(30).joined(separator: "\n"))")
    // The corpus is there and large: a lost oracle.json or an empty folder must not pass.
    #expect(tally.validAgree > 500)
    #expect(tally.invalidRefused > 500)
  }

  static func compareCorpus() throws -> Tally {
    let oracleBytes = try Array(Data(contentsOf: URL(fileURLWithPath: corpusDirectory + "/oracle.json")))
    let oracle = try JSONFormat().parse(
      oracleBytes, path: "oracle.json", options: ParseOptions(maxFileSize: 256 << 20))
    guard let files = oracle.root.value(atComponents: ["files"])?.table else {
      throw StrataError(.syntax, "oracle.json has no files table")
    }
    var tally = Tally()
    for entry in files {
      let path = corpusDirectory + "/" + entry.key
      let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
      let isValid = entry.value.value(atComponents: ["valid"])?.kind == .bool(true)
      do {
        let document = try TOMLFormat().parse(bytes, path: entry.key, options: ParseOptions())
        guard isValid, let expected = entry.value.value(atComponents: ["value"]) else {
          let reason = entry.value.value(atComponents: ["reason"]).map { "\($0)" } ?? ""
          tally.disagreements.append("\(entry.key): Strata loads it, tomllib refuses it: \(reason)")
          continue
        }
        if let difference = TOMLOracleComparison.difference(expected, document.root, at: "") {
          tally.disagreements.append("\(entry.key): \(difference)")
        } else {
          tally.validAgree += 1
        }
      } catch {
        if isValid {
          tally.disagreements.append("\(entry.key): tomllib loads it, Strata refuses it: \(error)")
        } else if error.line < 1 || error.column < 1 || error.path != entry.key {
          tally.disagreements.append("\(entry.key): refused without a file:line:column: \(error)")
        } else {
          tally.invalidRefused += 1
        }
      }
    }
    return tally
  }
}

/// Compares a tree with tomllib's, written in toml-test's tagged JSON form.
enum TOMLOracleComparison {
  /// The first difference, described, or `nil` when the trees agree.
  static func difference(_ expected: SettingValue, _ actual: SettingValue, at path: String) -> String? {
    if let table = expected.table, let tag = scalarTag(table) {
      return scalarDifference(type: tag.type, text: tag.value, actual, at: path)
    }
    switch (expected.kind, actual.kind) {
    case (.table(let want), .table(let have)):
      let wantKeys = Set(want.map(\.key))
      let haveKeys = Set(have.map(\.key))
      guard wantKeys == haveKeys else {
        return "\(path): keys \(haveKeys.sorted()), tomllib has \(wantKeys.sorted())"
      }
      for entry in want {
        let child = path + "/" + entry.key
        if let difference = difference(entry.value, have[entry.key]!, at: child) { return difference }
      }
      return nil
    case (.array(let want), .array(let have)):
      guard want.count == have.count else {
        return "\(path): \(have.count) elements, tomllib has \(want.count)"
      }
      for (index, pair) in zip(want, have).enumerated() {
        if let difference = difference(pair.0, pair.1, at: path + "/\(index)") { return difference }
      }
      return nil
    default:
      return "\(path): \(actual.typeName) \(actual), tomllib has \(expected)"
    }
  }

  /// `{"type": T, "value": TEXT}`: a scalar of toml-test's tagged form.
  private static func scalarTag(_ table: SettingTable) -> (type: String, value: String)? {
    guard table.count == 2, case .string(let type)? = table["type"]?.kind,
      case .string(let value)? = table["value"]?.kind
    else { return nil }
    return (type, value)
  }

  private static func scalarDifference(type: String, text: String, _ actual: SettingValue, at path: String)
    -> String?
  {
    let agrees: Bool
    switch (type, actual.kind) {
    case ("string", .string(let string)): agrees = string == text
    case ("integer", .integer(let integer)): agrees = Int(text) == integer
    case ("float", .double(let double)): agrees = text == "nan" ? double.isNaN : Double(text) == double
    case ("bool", .bool(let flag)): agrees = (text == "true") == flag
    case ("datetime", .date(let date)):
      agrees = Double(text).map { abs($0 - date.timeIntervalSince1970) < 1e-4 } ?? false
    case ("datetime-local", .string(let string)), ("date-local", .string(let string)),
      ("time-local", .string(let string)):
      agrees = normalizedLocal(string) == normalizedLocal(text)
    default: agrees = false
    }
    return agrees ? nil : "\(path): \(actual.typeName) \(actual), tomllib has \(type) \(text)"
  }

  /// A local date or time with its fraction of a second as Python writes it: six digits, none when 0.
  static func normalizedLocal(_ text: String) -> String {
    guard let dot = text.firstIndex(of: ".") else { return text }
    let digits = text[text.index(after: dot)...].prefix(6)
    let fraction = digits + String(repeating: "0", count: 6 - digits.count)
    return fraction.allSatisfy { $0 == "0" } ? String(text[..<dot]) : String(text[..<dot]) + "." + fraction
  }
}

import Foundation
import Strata
import StrataYAML
import Testing

/// Every file of the corpus (real files of Debian and PyPI packages, and generated ones) parsed by
/// StrataYAML and compared with what PyYAML made of it (`Corpus/oracle.json`, written by
/// `Scripts/yaml-oracle.py expect`): the same tree, or a refusal on both sides.
@Suite struct YAMLCorpusTests {
  static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "Corpus")

  /// Where PyYAML and YAML 1.2 part and Strata follows 1.2: PyYAML refuses an anchor defined twice,
  /// which YAML 1.2 allows (the later definition wins), as libyaml does.
  static let knownDifferences = ["PyYAML: found duplicate anchor"]

  /// Files of the generated corpus where libyaml (Strata's parser) and PyYAML read the text
  /// differently, each with why. Neither reads the other's way silently: one side refuses the file.
  static let knownFileDifferences = [
    "generated/mutant-176.yaml":
      "a tab inside a plain key (`ho\tt:`): YAML allows it and libyaml reads it; PyYAML refuses",
    "generated/mutant-199.yaml":
      "`url:['é']` in a flow mapping: PyYAML reads a key before a ':' with no space; libyaml refuses (YAML 1.2 "
      + "allows it only after a quoted or JSON-like key)",
    "generated/mutant-014.yaml": "an unknown directive (`%YAM`): PyYAML ignores it; libyaml refuses",
    "generated/mutant-055.yaml": "an unknown directive: PyYAML ignores it; libyaml refuses",
    "generated/mutant-071.yaml": "an unknown directive: PyYAML ignores it; libyaml refuses",
    "generated/mutant-131.yaml": "an unknown directive: PyYAML ignores it; libyaml refuses",
    "generated/mutant-231.yaml": "an unknown directive: PyYAML ignores it; libyaml refuses",
    "generated/mutant-289.yaml": "`%YAML 1.22`: PyYAML warns; libyaml refuses a version it does not know",
  ]

  @Test func everyFileAgreesWithPyYAML() throws {
    let data = try Data(contentsOf: Self.corpus.appendingPathComponent("oracle.json"))
    let oracle = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let files = try #require(oracle["files"] as? [String: [String: Any]])
    #expect(files.count > 4000)
    var disagreements: [String] = []
    var (read, refused, known) = (0, 0, 0)
    for (path, expectation) in files.sorted(by: { $0.key < $1.key }) {
      let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(path)))
      let parsed: Document?
      var failure: StrataError? = nil
      do {
        parsed = try YAMLFormat().parse(bytes, path: path, options: ParseOptions())
      } catch {
        parsed = nil
        failure = error
      }
      if Self.knownFileDifferences[path] != nil, (parsed == nil) == (expectation["valid"] as? Bool == true) {
        known += 1
        continue
      }
      if expectation["valid"] as? Bool == true {
        guard let parsed else {
          disagreements.append(
            "\(path): Strata refused a file PyYAML reads: \(failure.map(String.init(describing:)) ?? "")")
          continue
        }
        if let difference = Self.difference(parsed.root, expectation["value"] as Any, at: "") {
          disagreements.append("\(path): \(difference)")
        } else {
          read += 1
        }
      } else {
        let reason = expectation["reason"] as? String ?? ""
        if let failure {
          refused += 1
          // A generated file often has several faults, which the two parsers meet in different orders;
          // a real file is refused for the same reason on both sides.
          if path.hasPrefix("real/"), let expected = Self.expectedCode(forReason: reason),
            failure.code != expected
          {
            disagreements.append(
              "\(path): refused as \(failure.code) (\(failure)) where PyYAML says \(reason)")
          }
        } else if Self.knownDifferences.contains(where: reason.hasPrefix) {
          known += 1
        } else {
          disagreements.append("\(path): Strata read a file PyYAML refuses (\(reason))")
        }
      }
    }
    print(
      "YAML corpus: \(files.count) files; \(read) read equal, \(refused) refused by both, \(known) known differences"
    )
    #expect(
      disagreements.isEmpty,
      "\(disagreements.count) of \(files.count) files disagree:\n\(disagreements.prefix(30).joined(separator: "\n"))"
    )
  }

  /// The code Strata must refuse a file with, for the oracle's documented refusals.
  static func expectedCode(forReason reason: String) -> StrataError.Code? {
    let codes: [(String, StrataError.Code)] = [
      ("refused: a duplicate key", .duplicateKey), ("refused: a key that is not a string", .typeMismatch),
      ("refused: an alias as a key", .typeMismatch), ("refused: a collection as a key", .typeMismatch),
      ("refused: an explicit key", .typeMismatch),
      ("refused: a top level that is not a mapping", .typeMismatch),
      ("refused: more than one document", .syntax), ("refused: an integer outside 64 bits", .invalidNumber),
      ("refused: the tag", .typeMismatch), ("not UTF-8", .invalidUTF8), ("PyYAML:", .syntax),
    ]
    return codes.first { reason.hasPrefix($0.0) }?.1
  }

  /// How a tree differs from the oracle's tagged form, or `nil`.
  static func difference(_ value: SettingValue, _ expected: Any, at path: String) -> String? {
    switch value.kind {
    case .table(let table):
      guard let object = expected as? [String: Any] else {
        return "\(path): a table where PyYAML has \(expected)"
      }
      if Set(table.map(\.key)) != Set(object.keys) {
        return "\(path): keys \(table.map(\.key).sorted()) where PyYAML has \(object.keys.sorted())"
      }
      for (key, element) in table {
        if let difference = difference(element, object[key]!, at: path + "." + key) { return difference }
      }
      return nil
    case .array(let elements):
      guard let array = expected as? [Any], array.count == elements.count else {
        return "\(path): \(elements.count) elements where PyYAML has \(expected)"
      }
      for (index, element) in elements.enumerated() {
        if let difference = difference(element, array[index], at: path + "[\(index)]") { return difference }
      }
      return nil
    default:
      guard let scalar = expected as? [String: String], let type = scalar["type"], let text = scalar["value"]
      else {
        return "\(path): a scalar where PyYAML has \(expected)"
      }
      let same: Bool
      switch (value.kind, type) {
      case (.string(let string), "string"): same = string == text
      case (.integer(let integer), "integer"): same = String(integer) == text
      case (.unsignedInteger(let integer), "integer"): same = String(integer) == text
      case (.bool(let bool), "bool"): same = (bool ? "true" : "false") == text
      case (.double(let double), "float"): same = text == "nan" ? double.isNaN : Double(text) == double
      default: same = false
      }
      return same ? nil : "\(path): \(value.kind) where PyYAML has \(type) \(text)"
    }
  }
}

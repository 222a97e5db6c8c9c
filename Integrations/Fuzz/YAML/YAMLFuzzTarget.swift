import Strata
import StrataYAML

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The YAML format under libFuzzer (`Scripts/fuzz-yaml.sh`): any bytes parse to a document or a
/// ``StrataError``, never a crash, a hang or unbounded memory; a document serializes, and the text
/// written parses back to an equal tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYAML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  runYAMLTarget(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}

func runYAMLTarget(_ bytes: [UInt8]) {
  var options = ParseOptions()
  options.maxValues = 100_000
  guard let document = try? YAMLFormat().parse(bytes, path: "fuzz.yaml", options: options) else { return }
  let written: [UInt8]
  do {
    written = try YAMLFormat().serialize(document.root)
  } catch {
    fatalError("a parsed document does not serialize: \(error)")
  }
  let again: Document
  do {
    again = try YAMLFormat().parse(written, path: "again.yaml", options: options)
  } catch {
    fatalError("written YAML does not parse: \(error)\n\(String(decoding: written, as: UTF8.self))")
  }
  if again.root != document.root && !containsNaN(document.root) {
    fatalError("the tree changed through serialize and parse:\n\(String(decoding: written, as: UTF8.self))")
  }
}

/// Whether a tree holds a NaN, which equals nothing, itself included.
func containsNaN(_ value: SettingValue) -> Bool {
  switch value.kind {
  case .double(let double): double.isNaN
  case .array(let elements): elements.contains(where: containsNaN)
  case .table(let table): table.contains { containsNaN($0.value) }
  default: false
  }
}

#if !FUZZING
  /// Without libFuzzer: runs the target on each file named (a crash's reproducer, or a corpus).
  @main struct ReplayYAMLInputs {
    static func main() throws {
      for path in CommandLine.arguments.dropFirst() {
        runYAMLTarget(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
      }
    }
  }
#endif

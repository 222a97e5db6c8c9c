import Foundation
import Strata
import Testing

@testable import StrataEtcd

/// The etcd source's tree changed key by key (a watch's puts and deletes): each change gives the tree
/// and the diagnostics a whole read of the same keys gives.
@Suite struct EtcdTreeTests {
  @Test func aPutChangesItsKeyAndKeepsTheOthersInPlace() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .string)
    tree.replaceAll(
      [entry("/p/a/x", "1", 1), entry("/p/b", "2", 2), entry("/p/c/y", "3", 3)], options: ParseOptions())
    tree.put(entry("/p/b", "20", 4), options: ParseOptions())
    tree.put(entry("/p/a/w", "0", 5), options: ParseOptions())  // a new key, before a/x in a's order
    let (root, diagnostics) = tree.contents
    #expect(root.value(at: "b")?.kind == .string("20"))
    #expect(root.value(at: "b")?.origin.description == "etcd:/p/b@rev 4")
    #expect(root.table?.map(\.key) == ["a", "b", "c"])
    #expect(root.value(at: "a")?.table?.map(\.key) == ["w", "x"])
    // A table made for the keys below takes the origin of its first key.
    #expect(root.value(at: "a")?.origin.description == "etcd:/p/a/w@rev 5")
    #expect(diagnostics.isEmpty)
    // The same revision again (a whole read that overlaps the watch) changes nothing.
    tree.put(entry("/p/b", "not read", 4), options: ParseOptions())
    #expect(tree.contents.root.value(at: "b")?.kind == .string("20"))
  }

  @Test func aDeleteThatEmptiesATableRemovesTheTable() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .string)
    tree.replaceAll([entry("/p/a/b/c", "1", 1), entry("/p/z", "2", 2)], options: ParseOptions())
    tree.delete(Array("/p/a/b/c".utf8))
    let root = tree.contents.root
    #expect(root.table?.map(\.key) == ["z"])
    #expect(root.origin.description == "etcd:/p/")
    tree.delete(Array("/p/z".utf8))
    tree.delete(Array("/p/never".utf8))  // a key the tree does not have: nothing happens
    #expect(tree.contents.root.table?.isEmpty == true)
    // The paths are gone too: the key can come back as a table or a value.
    tree.put(entry("/p/a", "v", 3), options: ParseOptions())
    #expect(tree.contents.root.value(at: "a")?.kind == .string("v"))
  }

  @Test func aPutTurnsAValueIntoATableWithAWarningAndADeleteTurnsItBack() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .string)
    tree.replaceAll([entry("/p/server", "flat", 1)], options: ParseOptions())
    tree.put(entry("/p/server/port", "1", 2), options: ParseOptions())
    var (root, diagnostics) = tree.contents
    #expect(root.value(at: "server.port")?.kind == .string("1"))
    #expect(diagnostics.map(\.severity) == [.warning])
    #expect(diagnostics.first?.error.path == "etcd:/p/server/port")
    #expect(diagnostics.first?.error.message.contains("both a value and a table") == true)
    tree.delete(Array("/p/server/port".utf8))
    (root, diagnostics) = tree.contents
    #expect(root.value(at: "server")?.kind == .string("flat"))
    #expect(diagnostics.isEmpty)
    // And without the value: the table alone, then the value alone.
    tree.delete(Array("/p/server".utf8))
    tree.put(entry("/p/server/port", "2", 3), options: ParseOptions())
    #expect(tree.contents.root.value(at: "server.port")?.kind == .string("2"))
    tree.delete(Array("/p/server/port".utf8))
    tree.put(entry("/p/server", "again", 4), options: ParseOptions())
    #expect(tree.contents.root.value(at: "server")?.kind == .string("again"))
  }

  @Test func keysWithAnEmptyNameOrTooManyNamesAreWarnedOfUntilDeleted() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .string)
    let options = ParseOptions(maxDepth: 3)
    tree.replaceAll([entry("/p/port", "1", 1)], options: options)
    tree.put(entry("/p//port", "2", 2), options: options)
    tree.put(entry("/p/a/b/c/d", "3", 3), options: options)
    tree.put(
      EtcdConnection.Entry(key: Array("/p/".utf8) + [0xff], value: [], modRevision: 4), options: options)
    let (root, diagnostics) = tree.contents
    #expect(root.table?.map(\.key) == ["port"])
    #expect(root.value(at: "port")?.kind == .string("1"))
    #expect(diagnostics.count == 3 && diagnostics.allSatisfy { $0.severity == .warning })
    #expect(diagnostics.map(\.error.path) == ["etcd:/p//port", "etcd:/p/a/b/c/d", "/p/"])
    #expect(diagnostics[1].error.message.contains("4 names deep, more than ParseOptions.maxDepth (3)"))
    tree.delete(Array("/p//port".utf8))
    tree.delete(Array("/p/a/b/c/d".utf8))
    tree.delete(Array("/p/".utf8) + [0xff])
    #expect(tree.contents.diagnostics.isEmpty)
  }

  @Test func aBadPutKeepsTheLastGoodValueUntilTheKeyIsDeleted() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .json)
    tree.replaceAll([entry("/p/n", "1", 1)], options: ParseOptions())
    tree.put(entry("/p/n", "1 2", 2), options: ParseOptions())
    var (root, diagnostics) = tree.contents
    #expect(root.value(at: "n")?.kind == .integer(1))
    #expect(root.value(at: "n")?.origin.description == "etcd:/p/n@rev 1")
    #expect(diagnostics.map(\.severity) == [.error])
    #expect(diagnostics.first?.error.message.contains("revision 2; the last good value is kept") == true)
    tree.put(entry("/p/n", "3", 3), options: ParseOptions())
    (root, diagnostics) = tree.contents
    #expect(root.value(at: "n")?.kind == .integer(3))
    #expect(diagnostics.isEmpty)
    tree.delete(Array("/p/n".utf8))
    tree.put(entry("/p/n", "[", 4), options: ParseOptions())
    (root, diagnostics) = tree.contents
    #expect(root.value(at: "n") == nil)
    #expect(root.table?.isEmpty == true)
    #expect(diagnostics.first?.error.message.contains("left out") == true)
  }

  @Test func aJSONObjectTakesTheKeysBelowItAsItsOwn() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .json)
    tree.replaceAll([entry("/p/db", #"{"host": "h", "port": 1}"#, 1)], options: ParseOptions())
    tree.put(entry("/p/db/user", #""u""#, 2), options: ParseOptions())
    tree.put(entry("/p/db/port/x", "2", 3), options: ParseOptions())
    let (root, diagnostics) = tree.contents
    #expect(root.value(at: "db")?.table?.map(\.key) == ["host", "port", "user"])
    #expect(root.value(at: "db.port.x")?.kind == .integer(2))
    #expect(diagnostics.map(\.error.path) == ["etcd:/p/db/port/x"])
  }

  /// A seeded random sequence of puts and deletes (bad values, empty names, values that become tables
  /// and back, JSON objects that merge with keys below them): after each, the incremental tree equals a
  /// whole build of the same keys, in content, order, origins and diagnostics. The work (tens of seconds
  /// of one core in a debug build) runs on a thread of its own, so that the suite's other tests keep
  /// the cooperative pool.
  @Test(arguments: [(EtcdValueFormat.string, UInt64(1)), (.json, 2), (.json, 3)])
  func changesGiveWhatAWholeBuildGives(format: EtcdValueFormat, seed: UInt64) async {
    let mismatches = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
      Thread { continuation.resume(returning: Self.compareChanges(format: format, seed: seed)) }.start()
    }
    #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
  }

  /// The body of ``changesGiveWhatAWholeBuildGives(format:seed:)``: what differed (nothing when the
  /// incremental tree agreed after every change).
  private static func compareChanges(format: EtcdValueFormat, seed: UInt64) -> [String] {
    var generator = SplitMix(seed: seed)
    let names = ["a", "b", "a-b", "a.b", "ab", "c"]
    let values =
      format.isString
      ? ["x", "yy", "a longer value than fifteen bytes", "\u{e9}"]
      : ["1", #""s""#, "[1, 2]", #"{"b": 1}"#, #"{"a": {"c": true}, "b": [1]}"#, "{}", "1 2", "["]
    var incremental = EtcdTree(prefix: Array("/p/".utf8), format: format)
    var reference = EtcdFullBuildReference(prefix: Array("/p/".utf8), format: format)
    var keys: [[UInt8]: EtcdConnection.Entry] = [:]
    for revision in 1...1_500 {
      var key = "/p"
      for _ in 0...Int.random(in: 0...2, using: &generator) {
        key +=
          "/"
          + (Int.random(in: 0..<20, using: &generator) == 0 ? "" : names.randomElement(using: &generator)!)
      }
      var bytes = Array(key.utf8)
      if Int.random(in: 0..<50, using: &generator) == 0 { bytes.append(0xff) }
      if keys[bytes] != nil && Int.random(in: 0..<3, using: &generator) == 0 {
        keys[bytes] = nil
        incremental.delete(bytes)
      } else {
        let value = Array(values.randomElement(using: &generator)!.utf8)
        let change = EtcdConnection.Entry(key: bytes, value: value, modRevision: revision)
        keys[bytes] = change
        incremental.put(change, options: ParseOptions())
      }
      let expected = reference.build(Array(keys.values), options: ParseOptions())
      let found = incremental.contents
      let (tree, expectedTree) = (describe(found.root), describe(expected.root))
      // Where a JSON object merges with keys below it, a value/table warning may name another key of
      // the merge than the whole build's (the tree is the same): for JSON, those warnings are left out.
      let merges = !format.isString
      let (notes, expectedNotes) = (
        describe(found.diagnostics, withoutMerges: merges),
        describe(expected.diagnostics, withoutMerges: merges)
      )
      var mismatches: [String] = []
      if tree != expectedTree {
        mismatches.append("tree after change \(revision) (\(key)): \(tree.difference(from: expectedTree))")
      }
      if notes != expectedNotes {
        mismatches.append(
          "diagnostics after change \(revision) (\(key)): \(notes.difference(from: expectedNotes))")
      }
      if !mismatches.isEmpty { return mismatches }
    }
    // A whole read of the same keys (their revisions unchanged: nothing parsed again, the last good
    // values kept) gives the same tree again.
    let changed = incremental.contents
    let read = incremental.build(Array(keys.values), options: ParseOptions())
    var mismatches: [String] = []
    if describe(read.root) != describe(changed.root) { mismatches.append("a whole read gave another tree") }
    if read.diagnostics.map(\.description) != changed.diagnostics.map(\.description) {
      mismatches.append("a whole read gave other diagnostics")
    }
    return mismatches
  }

  /// The diagnostics as text (without the value/table warnings when `withoutMerges`).
  private static func describe(_ diagnostics: [Diagnostic], withoutMerges: Bool) -> [String] {
    diagnostics.filter { !withoutMerges || $0.error.code != .typeMismatch }.map(\.description)
  }

  /// Every node of a tree, in order, with its origin: `a.b = x @ etcd:/p/a/b@rev 3`.
  private static func describe(_ value: SettingValue, path: String = "") -> [String] {
    switch value.kind {
    case .table(let table):
      ["\(path) {} @ \(value.origin)"] + table.flatMap { describe($0.value, path: path + "." + $0.key) }
    case .array(let elements):
      ["\(path) [] @ \(value.origin)"] + elements.flatMap { describe($0, path: path + "[]") }
    default:
      ["\(path) = \(value) @ \(value.origin)"]
    }
  }

  private func entry(_ key: String, _ value: String, _ revision: Int) -> EtcdConnection.Entry {
    EtcdConnection.Entry(key: Array(key.utf8), value: Array(value.utf8), modRevision: revision)
  }
}

extension EtcdValueFormat {
  fileprivate var isString: Bool {
    if case .string = kind { return true }
    return false
  }
}

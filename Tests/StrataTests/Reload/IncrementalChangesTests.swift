import Testing

@testable import Strata

/// A reload's changes are found from the documents that differ, not from every key: they must be the
/// changes a comparison of every key of both snapshots finds.
@Suite struct IncrementalChangesTests {
  /// A small random tree: tables two levels deep, keys from a short list (so that edits collide).
  private static func tree(_ random: inout SplitMix64, path: String, depth: Int = 0) -> SettingValue {
    var table = SettingTable()
    for _ in 0..<Int.random(in: 1...4, using: &random) {
      let key = ["a", "b", "c", "d.e"].randomElement(using: &random)!
      let line = Int.random(in: 1...3, using: &random)
      if depth < 2 && Bool.random(using: &random) {
        table[key] = tree(&random, path: path, depth: depth + 1)
      } else {
        table[key] = SettingValue(
          .string(["1", "2", "x"].randomElement(using: &random)!),
          origin: .file(path: path, line: line, column: 1))
      }
    }
    return SettingValue(.table(table), origin: .file(path: path, line: 1, column: 1))
  }

  /// The same tree with one random edit: a value, an origin, a key added or removed, a leaf made a table
  /// or a table made a leaf, somewhere below the root.
  private static func edited(_ value: SettingValue, _ random: inout SplitMix64, path: String)
    -> SettingValue
  {
    guard case .table(var table) = value.kind, !table.isEmpty else { return value }
    let key = table.keys.randomElement(using: &random)!
    let child = table[key]!
    switch Int.random(in: 0..<6, using: &random) {
    case 0: table[key] = SettingValue(.string("changed"), origin: child.origin)
    case 1: table[key] = SettingValue(child.kind, origin: .file(path: path, line: 99, column: 9))
    case 2: table[key] = nil
    case 3: table["new"] = SettingValue(.string("1"), origin: .file(path: path, line: 7, column: 1))
    case 4:
      table[key] =
        child.isTable ? SettingValue(.string("1"), origin: child.origin) : tree(&random, path: path)
    default: table[key] = edited(child, &random, path: path)
    }
    return SettingValue(.table(table), origin: value.origin)
  }

  @Test(arguments: 0..<200)
  func changesFromTheDocumentsThatDifferAreThoseOfEveryKey(seed: Int) {
    var random = SplitMix64(seed: UInt64(seed))
    let paths = ["/vendor.ini", "/system.ini", "/user.ini"].prefix(Int.random(in: 1...3, using: &random))
    let before = paths.map {
      Snapshot.Source(scope: .system, document: Document(path: $0, root: Self.tree(&random, path: $0)))
    }
    var after = before
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      let index = Int.random(in: 0..<after.count, using: &random)
      after[index].document.root = Self.edited(
        after[index].document.root, &random, path: after[index].document.path)
    }
    let old = Snapshot(generation: 1, sources: before)
    let new = Snapshot(generation: 2, sources: after)
    let found = new.changes(since: old)
    let expected = Snapshot(generation: 2, sources: after).changesByWalkingEveryKey(since: old)
    #expect(found.affected == expected.affected, "seed \(seed)")
    #expect(Set(found.changedValues) == Set(expected.changedValues), "seed \(seed)")
    #expect(Set(found.removed) == Set(expected.removed), "seed \(seed)")
    #expect(found.changedValues.count == Set(found.changedValues).count, "seed \(seed): a key twice")
    #expect(!found.everything)
  }

  @Test func documentsThatAreCopiesAreNotWalked() {
    var random = SplitMix64(seed: 7)
    let root = Self.tree(&random, path: "/a.ini")
    let old = Snapshot(
      generation: 1, sources: [.init(scope: .system, document: Document(path: "/a.ini", root: root))])
    let new = Snapshot(
      generation: 2, sources: [.init(scope: .system, document: Document(path: "/a.ini", root: root))])
    let changes = new.changes(since: old)
    #expect(!changes.sourcesDiffer)
    #expect(changes.affected.isEmpty)
  }

  @Test func aTableWhoseOriginMovedIsADifferenceThoughNoLeafChanged() {
    let leaf = SettingValue(.string("1"), origin: .file(path: "/a.ini", line: 3, column: 5))
    func document(tableLine: Int) -> Snapshot.Source {
      let table = SettingValue(
        .table(SettingTable([("port", leaf)])), origin: .file(path: "/a.ini", line: tableLine, column: 1))
      return .init(
        scope: .system,
        document: Document(
          path: "/a.ini", root: .init(.table(SettingTable([("server", table)])), origin: .codeDefault)))
    }
    let changes = Snapshot(generation: 2, sources: [document(tableLine: 2)]).changes(
      since: Snapshot(generation: 1, sources: [document(tableLine: 1)]))
    #expect(changes.sourcesDiffer)
    #expect(changes.affected.isEmpty)
  }

  @Test func theFirstSnapshotChangesEverything() {
    let source = Snapshot.Source(
      scope: .system, document: Document(path: "/a.ini", root: .emptyTable(origin: .codeDefault)))
    let changes = Snapshot(generation: 1, sources: [source]).changes(since: .empty)
    #expect(changes.everything)
  }

  /// After a snapshot without a key (a remote source not read yet, an empty file), every key of the
  /// next is new: one walk gives the keys a comparison of every key finds, each with its origin.
  @Test(arguments: 0..<50)
  func afterASnapshotWithoutAKeyEveryKeyIsNewWithItsOrigin(seed: Int) {
    var random = SplitMix64(seed: UInt64(seed))
    let emptyBefore = [
      Snapshot.Source(
        scope: .vendor, document: Document(path: "/empty.ini", root: .emptyTable(origin: .codeDefault)))
    ]
    let after =
      emptyBefore
      + ["/system.ini", "/user.ini"].prefix(Int.random(in: 1...2, using: &random)).map {
        Snapshot.Source(scope: .user, document: Document(path: $0, root: Self.tree(&random, path: $0)))
      }
    let old = Snapshot(generation: 1, sources: emptyBefore)
    let new = Snapshot(generation: 2, sources: after)
    let found = new.changes(since: old)
    let expected = Snapshot(generation: 2, sources: after).changesByWalkingEveryKey(since: old)
    #expect(found.everything && found.sourcesDiffer)
    #expect(found.changedValues == new.keys, "seed \(seed)")
    #expect(Set(found.changedValues) == Set(expected.changedValues), "seed \(seed)")
    #expect(found.removed.isEmpty && expected.removed.isEmpty)
    #expect(found.changedOrigins == found.changedValues.map { new.entry(forKey: $0)!.origin }, "seed \(seed)")
    // Nothing new to compare with: the usual way.
    #expect(Snapshot(generation: 3, sources: emptyBefore).changes(since: old).changedOrigins == nil)
  }

  @Test func entriesLookedUpInTheTreesAreThoseOfTheIndex() {
    var random = SplitMix64(seed: 11)
    let sources = ["/v.ini", "/s.ini", "/u.ini"].map {
      Snapshot.Source(scope: .system, document: Document(path: $0, root: Self.tree(&random, path: $0)))
    }
    let looked = Snapshot(generation: 1, sources: sources)
    let indexed = Snapshot(generation: 1, sources: sources)
    #expect(!indexed.keys.isEmpty)  // builds the index
    for key in indexed.keys {
      let a = looked.entry(forKey: key)
      let b = indexed.entry(forKey: key)
      #expect(a != nil && b != nil && a!.isIdentical(to: b!), "\(key)")
    }
    #expect(looked.lookUpEntry(key: "nowhere", names: ["nowhere"]) == nil)
  }
}

/// The log that lets a setting no reload touched keep its cached value.
@Suite struct ChangeLogTests {
  @Test func aKeyIsLeftAloneOnlyWhenEveryGenerationSinceIsRecordedWithoutIt() {
    let log = ChangeLog()
    log.record(generation: 2, affected: ["a"])
    log.record(generation: 3, affected: ["b"])
    #expect(log.leavesAlone(["c"], after: 1, through: 3))
    #expect(!log.leavesAlone(["a"], after: 1, through: 3))
    #expect(log.leavesAlone(["a"], after: 2, through: 3))
    // Generation 4 is published but not recorded yet: resolve.
    #expect(!log.leavesAlone(["c"], after: 1, through: 4))
    // Never cached, or nothing newer.
    #expect(!log.leavesAlone(["c"], after: -1, through: 3))
    #expect(!log.leavesAlone(["c"], after: 3, through: 3))
    // A generation that may have changed anything.
    log.record(generation: 4, affected: nil)
    #expect(!log.leavesAlone(["c"], after: 3, through: 4))
  }

  @Test func generationsOlderThanTheLogHoldsAreResolvedAgain() {
    let log = ChangeLog()
    for generation in 1...(ChangeLog.capacity + 5) { log.record(generation: generation, affected: ["x"]) }
    #expect(!log.leavesAlone(["y"], after: 1, through: ChangeLog.capacity + 5))
    #expect(log.leavesAlone(["y"], after: 5, through: ChangeLog.capacity + 5))
  }
}

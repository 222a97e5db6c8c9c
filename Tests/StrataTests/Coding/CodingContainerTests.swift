import Foundation
import Testing

@testable import Strata

/// One field of every primitive type, so that each keyed `decode`/`encode` overload runs.
struct Primitives: Codable, Equatable {
  var b = true
  var s = "s"
  var d = 0.5
  var f: Float = 1.5
  var i = -1
  var i8: Int8 = -8
  var i16: Int16 = -16
  var i32: Int32 = -32
  var i64: Int64 = -64
  var u: UInt = 1
  var u8: UInt8 = 8
  var u16: UInt16 = 16
  var u32: UInt32 = 32
  var u64: UInt64 = 64
}

/// The same fields written by hand into an unkeyed container, for the unkeyed overloads.
struct PrimitiveList: Codable, Equatable {
  var p = Primitives()

  init() {}

  init(from decoder: any Decoder) throws {
    var c = try decoder.unkeyedContainer()
    p.b = try c.decode(Bool.self)
    p.s = try c.decode(String.self)
    p.d = try c.decode(Double.self)
    p.f = try c.decode(Float.self)
    p.i = try c.decode(Int.self)
    p.i8 = try c.decode(Int8.self)
    p.i16 = try c.decode(Int16.self)
    p.i32 = try c.decode(Int32.self)
    p.i64 = try c.decode(Int64.self)
    p.u = try c.decode(UInt.self)
    p.u8 = try c.decode(UInt8.self)
    p.u16 = try c.decode(UInt16.self)
    p.u32 = try c.decode(UInt32.self)
    p.u64 = try c.decode(UInt64.self)
  }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.unkeyedContainer()
    try c.encode(p.b)
    try c.encode(p.s)
    try c.encode(p.d)
    try c.encode(p.f)
    try c.encode(p.i)
    try c.encode(p.i8)
    try c.encode(p.i16)
    try c.encode(p.i32)
    try c.encode(p.i64)
    try c.encode(p.u)
    try c.encode(p.u8)
    try c.encode(p.u16)
    try c.encode(p.u32)
    try c.encode(p.u64)
  }
}

/// Nested containers and super coders, as hand-written `Codable` code uses them.
struct Nested: Codable, Equatable {
  var host = "h"
  var ports: [Int] = [1, 2]
  var inner = "i"
  var parent = "p"
  var pair = ["x": 1]
  var tail = [[3]]

  init() {}

  enum Keys: String, CodingKey { case address, ports, inner, pair, tail }
  enum AddressKeys: String, CodingKey { case host }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    host = try c.nestedContainer(keyedBy: AddressKeys.self, forKey: .address).decode(
      String.self, forKey: .host)
    var list = try c.nestedUnkeyedContainer(forKey: .ports)
    ports = []
    while !list.isAtEnd { ports.append(try list.decode(Int.self)) }
    inner = try String(from: c.superDecoder(forKey: .inner))
    parent = try String(from: c.superDecoder())
    var pairs = try c.nestedUnkeyedContainer(forKey: .pair)
    pair = try pairs.nestedContainer(keyedBy: NameKey.self).decode([String: Int].self, forKey: NameKey("m"))
    var tails = try c.nestedUnkeyedContainer(forKey: .tail)
    var first = try tails.nestedUnkeyedContainer()
    tail = [[try first.decode(Int.self)]]
    _ = try tails.superDecoder()
  }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Keys.self)
    var address = c.nestedContainer(keyedBy: AddressKeys.self, forKey: .address)
    try address.encode(host, forKey: .host)
    var list = c.nestedUnkeyedContainer(forKey: .ports)
    for port in ports { try list.encode(port) }
    try inner.encode(to: c.superEncoder(forKey: .inner))
    try parent.encode(to: c.superEncoder())
    var pairs = c.nestedUnkeyedContainer(forKey: .pair)
    var m = pairs.nestedContainer(keyedBy: NameKey.self)
    try m.encode(pair, forKey: NameKey("m"))
    var tails = c.nestedUnkeyedContainer(forKey: .tail)
    var first = tails.nestedUnkeyedContainer()
    try first.encode(tail[0][0])
    try 0.encode(to: tails.superEncoder())
  }
}

/// A port checked by hand, through a single-value container.
struct Port: Decodable, Equatable {
  var number: UInt16

  struct Privileged: Error, CustomStringConvertible {
    var description: String { "privileged port" }
  }

  init(from decoder: any Decoder) throws {
    number = try decoder.singleValueContainer().decode(UInt16.self)
    if number == 0 {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "port 0 is reserved"))
    }
    if number == 1 {
      throw DecodingError.typeMismatch(
        UInt16.self, .init(codingPath: decoder.codingPath, debugDescription: "port 1 is not a port"))
    }
    if number < 1024 { throw Privileged() }
  }
}

@Suite("Coding: containers")
struct CodingContainerTests {
  @Test func everyKeyedOverload() throws {
    let tree = try #require(try SettingEncoder().encode(Primitives()))
    #expect(tree.table?.count == 14)
    #expect(try decoded(Primitives.self, tree) == Primitives())
    #expect(try decoded(Primitives.self, asEnvironmentStrings(tree)) == Primitives())
  }

  @Test func everyUnkeyedOverload() throws {
    let tree = try #require(try SettingEncoder().encode(PrimitiveList()))
    guard case .array(let items) = tree.kind else {
      Issue.record("not an array: \(tree)")
      return
    }
    #expect(items.count == 14)
    #expect(try decoded(PrimitiveList.self, tree) == PrimitiveList())
  }

  @Test func readingPastTheEndOfAnArray() {
    expectFailure(
      PrimitiveList.self, node(.array([node(.bool(true))])), key: "list", code: .notFound,
      message: "expected String for list[1], found nothing")
  }

  @Test func nestedContainersAndSuperCoders() throws {
    let tree = try #require(try SettingEncoder().encode(Nested()))
    #expect(tree.value(at: "address.host") == node(.string("h")))
    #expect(tree.value(at: "inner") == node(.string("i")))
    #expect(tree.value(at: "super") == node(.string("p")))
    #expect(try decoded(Nested.self, tree) == Nested())
  }

  @Test func nestedContainersOfTheWrongKind() {
    var entries = SettingEncoderTestTree.nested
    entries["address"] = text("nowhere")
    expectFailure(
      Nested.self, node(.table(entries)), key: "n",
      message: "expected SettingTable for n.address, found \"nowhere\"")
    entries = SettingEncoderTestTree.nested
    entries["address"] = nil
    expectFailure(Nested.self, node(.table(entries)), key: "n", code: .notFound)
    entries = SettingEncoderTestTree.nested
    entries["inner"] = nil
    expectFailure(Nested.self, node(.table(entries)), key: "n", code: .notFound)
    entries = SettingEncoderTestTree.nested
    entries["ports"] = table([])
    expectFailure(Nested.self, node(.table(entries)), key: "n")
  }

  @Test func errorsFromCustomDecodersAreLocated() throws {
    #expect(try decoded(Port.self, text("8080")).number == 8080)
    expectFailure(
      Port.self, text("70000"), key: "port", code: .invalidValue,
      message: "expected Port for port, found \"70000\" (out of range)")
    expectFailure(
      Port.self, text("0"), key: "port", code: .invalidValue,
      message: "expected Port for port, found \"0\" (port 0 is reserved)")
    expectFailure(
      Port.self, text("1"), key: "port", message: "expected Port for port, found \"1\" (port 1 is not a port)"
    )
    expectFailure(
      Port.self, text("80"), key: "port", code: .invalidValue,
      message: "expected Port for port, found \"80\" (privileged port)")
  }

  @Test func typeNamesAreSugared() {
    #expect(CodingSupport.typeName([String].self) == "[String]")
    #expect(CodingSupport.typeName([String: [Int?]].self) == "[String: [Int?]]")
    #expect(CodingSupport.typeName(Set<String>.self) == "Set<String>")
    #expect(CodingSupport.typeName([String: Set<Int>].self) == "[String: Set<Int>]")
    #expect(CodingSupport.typeName(Primitives.self) == "Primitives")
  }
}

/// The encoded ``Nested`` table, as a starting point for broken variants.
enum SettingEncoderTestTree {
  static var nested: SettingTable {
    (try? SettingEncoder().encode(Nested(), origin: codingOrigin))?.table ?? SettingTable()
  }
}

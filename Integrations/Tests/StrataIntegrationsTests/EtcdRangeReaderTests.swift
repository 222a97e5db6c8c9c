import Foundation
import Testing

@testable import StrataEtcd

/// The range answer read byte by byte gives what `JSONDecoder` and Foundation's base64 give, on
/// answers written the way etcd's gateway writes them and in every other legal way; and fails with a
/// position, never a crash, on anything else.
@Suite struct EtcdRangeReaderTests {
  /// What the `Codable` shapes and Foundation make of `json`.
  private func reference(_ json: [UInt8]) throws -> (revision: Int, cluster: UInt64, entries: [[[UInt8]]]) {
    let response = try JSONDecoder().decode(EtcdWire.RangeResponse.self, from: Data(json))
    let entries = try (response.kvs ?? []).map { kv -> [[UInt8]] in
      let key = try #require(EtcdWire.bytes(base64: kv.key))
      let value = try #require(EtcdWire.bytes(base64: kv.value))
      return [key, value, Array(String(kv.mod_revision?.value ?? 0).utf8)]
    }
    return (response.header?.revision?.value ?? 0, response.header?.cluster_id?.value ?? 0, entries)
  }

  private func read(_ json: [UInt8]) throws -> (revision: Int, cluster: UInt64, entries: [[[UInt8]]]) {
    let (header, entries) = try EtcdRangeReader.read(json)
    return (
      header.revision, header.cluster,
      entries.map { [$0.key, $0.value, Array(String($0.modRevision).utf8)] }
    )
  }

  @Test func anAnswerAsTheGatewayWritesIt() throws {
    let json = Array(
      #"""
      {"header":{"cluster_id":"14841639068965178418","member_id":"10276657743932975437","revision":"7","raft_term":"2"},"kvs":[{"key":"L2FwcC9wb3J0","create_revision":"2","mod_revision":"7","version":"3","value":"ODA4MA=="},{"key":"L2FwcC9l","create_revision":"5","mod_revision":"5","version":"1","value":""}],"count":"2"}
      """#.utf8)
    let (header, entries) = try EtcdRangeReader.read(json)
    #expect(header.revision == 7 && header.cluster == 14_841_639_068_965_178_418)
    #expect(entries.map { String(decoding: $0.key, as: UTF8.self) } == ["/app/port", "/app/e"])
    #expect(entries.map { String(decoding: $0.value, as: UTF8.self) } == ["8080", ""])
    #expect(entries.map(\.modRevision) == [7, 5])
    #expect(try read(json) == reference(json))
    // An empty range: no kvs at all.
    let empty = Array(#"{"header":{"revision":"9"}}"#.utf8)
    #expect(try read(empty) == reference(empty))
  }

  @Test(arguments: 1...200)
  func generatedAnswersReadAsJSONDecoderReadsThem(seed: UInt64) throws {
    var random = SplitMix(seed: seed)
    let json = Self.answer(using: &random)
    #expect(try read(json) == reference(json), "seed \(seed): \(String(decoding: json, as: UTF8.self))")
  }

  @Test func whatIsNotAnAnswerFailsWithItsPosition() {
    for (text, words) in [
      (#"{"kvs":[{"key":"L2E=","value":"!!!!"}]}"#, "not base64"),
      (#"{"kvs":[{"value":"YQ=="}]}"#, "without a key"),
      (#"{"kvs":[{"key":"L2E=""#, "expected ','"),
      (#"{"header":{"revision":"x"}}"#, "expected a number"),
      (#"{"header":{}} trailing"#, "more after the answer"),
      (#"{"a":"\x"}"#, "unknown escape"),
      ("{\"a\":\"\u{1}\"}", "control character"),
      ("", "expected '{'"),
    ] {
      #expect(throws: EtcdConnection.Failure.self) { try EtcdRangeReader.read(Array(text.utf8)) }
      do {
        _ = try EtcdRangeReader.read(Array(text.utf8))
      } catch {
        #expect(error.description.contains(words), "\(text): \(error.description)")
        #expect(error.description.contains("at byte"))
      }
    }
  }

  @Test func deepNestingInAFieldIsRefusedWithoutRecursingFurther() {
    let deep = #"{"extra":"# + String(repeating: "[", count: 100_000) + "}"
    #expect(throws: EtcdConnection.Failure.self) { try EtcdRangeReader.read(Array(deep.utf8)) }
    let shallow = #"{"extra":"# + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}"
    #expect(throws: Never.self) { try EtcdRangeReader.read(Array(shallow.utf8)) }
  }

  // MARK: - Generated answers

  /// A range answer with random keys and values, fields in random order, unknown fields of every
  /// kind, numbers as strings or numbers, random spacing and escapes.
  static func answer(using random: inout SplitMix) -> [UInt8] {
    var members: [String] = []
    let header =
      #"{"cluster_id":\#(number(UInt64.random(in: 0...UInt64.max, using: &random), &random)),"#
      + #""revision":\#(number(UInt64.random(in: 0...1_000_000, using: &random), &random)),"raft_term":"3"}"#
    members.append(#""header":"# + header)
    let kvs = (0..<Int.random(in: 0...20, using: &random)).map { _ in entry(using: &random) }
    if !kvs.isEmpty || Bool.random(using: &random) {
      members.append(#""kvs":[\#(kvs.joined(separator: space(&random) + "," + space(&random)))]"#)
    }
    if Bool.random(using: &random) { members.append(#""count":"\#(kvs.count)""#) }
    if Bool.random(using: &random) { members.append(#""more":false"#) }
    if Bool.random(using: &random) { members.append(#""extra":{"a":[1,2.5e3,-4,null,true,{"b":"\u00e9"}]}"#) }
    members.shuffle(using: &random)
    return Array(
      ("{" + space(&random) + members.joined(separator: "," + space(&random)) + space(&random) + "}").utf8)
  }

  private static func entry(using random: inout SplitMix) -> String {
    let key = (0..<Int.random(in: 1...12, using: &random)).map { _ in
      UInt8.random(in: 0...255, using: &random)
    }
    let value = (0..<Int.random(in: 0...40, using: &random)).map { _ in
      UInt8.random(in: 0...255, using: &random)
    }
    var fields = [
      #""key":"\#(escaped(Data(key).base64EncodedString(), &random))""#,
      #""mod_revision":\#(number(UInt64.random(in: 1...1_000_000, using: &random), &random))"#,
      #""create_revision":"1""#, #""version":"1""#,
    ]
    if !value.isEmpty || Bool.random(using: &random) {
      fields.append(#""value":"\#(escaped(Data(value).base64EncodedString(), &random))""#)
    }
    if Bool.random(using: &random) { fields.append(#""lease":"0""#) }
    fields.shuffle(using: &random)
    return "{" + fields.joined(separator: "," + space(&random)) + "}"
  }

  /// A number as the gateway writes it (a string) or as JSON writes it.
  private static func number(_ value: UInt64, _ random: inout SplitMix) -> String {
    Bool.random(using: &random) ? #""\#(value)""# : "\(value)"
  }

  /// `text` with some characters written as escapes (`\/`, `\u002B`).
  private static func escaped(_ text: String, _ random: inout SplitMix) -> String {
    guard Bool.random(using: &random) else { return text }
    return text.replacingOccurrences(of: "/", with: #"\/"#).replacingOccurrences(of: "+", with: #"\u002B"#)
  }

  private static func space(_ random: inout SplitMix) -> String {
    ["", " ", "\n", "\t ", "\r\n  "][Int.random(in: 0..<5, using: &random)]
  }
}

import Foundation
import Testing

@testable import Strata

/// Generates property lists with Python's plistlib (`gen`), and checks plists written by Strata against
/// the same values (`check`). Values are described in `expected.json` with explicit types, so that
/// integers, reals and dates cross over exactly.
private let script = #"""
  import base64, datetime, json, math, plistlib, sys

  def cases():
      uni = {"ascii": "plain", "latin": "naïve café", "cjk": "設定値", "emoji": "😀 grin",
             "nonbmp": "𝄞𐍈", "mixed": "a\tb\nc <&> \"q\" 'a' ]]>"}
      everything = {
          "ints": [0, 1, -1, 255, 256, 65535, 65536, 2**31, -2**31, 2**32, 2**63 - 1, -2**63],
          "reals": [0.0, 0.1, 1e300, -1e-300, 5e-324, 1.5, float("inf"), float("-inf"), 123456789.125],
          "bools": [True, False],
          "dates": [datetime.datetime(2024, 1, 2, 3, 4, 5), datetime.datetime(1969, 7, 20, 20, 17, 40),
                    datetime.datetime(2001, 1, 1), datetime.datetime(2100, 2, 28, 23, 59, 59)],
          "data": [b"", b"\x00\x01\x02", bytes(range(256)) * 3],
          "strings": uni,
          "empty": {"dict": {}, "array": [], "string": "", "data": b""},
          "nested": {"a": {"b": {"c": [1, [2, [3, {"d": "deep"}]]]}}},
      }
      thousand = {f"key{i:04d}": (i if i % 3 == 0 else f"value {i} ü" if i % 3 == 1 else {"n": -i, "f": i / 7})
                  for i in range(1000)}
      return {"everything": everything, "empty": {}, "thousand": thousand,
              "unicode": {**uni, "é key 😀": "v", "z": 1, "a": 2}}

  def describe(v):
      if isinstance(v, bool): return {"t": "bool", "v": v}
      if isinstance(v, int): return {"t": "int", "v": str(v)}
      if isinstance(v, float): return {"t": "real", "v": repr(v)}
      if isinstance(v, str): return {"t": "string", "v": v}
      if isinstance(v, bytes): return {"t": "data", "v": base64.b64encode(v).decode()}
      if isinstance(v, datetime.datetime):
          return {"t": "date", "v": int((v - datetime.datetime(1970, 1, 1)).total_seconds())}
      if isinstance(v, list): return {"t": "array", "v": [describe(x) for x in v]}
      if isinstance(v, dict): return {"t": "dict", "v": [[k, describe(x)] for k, x in v.items()]}
      raise TypeError(type(v))

  def same(a, b, path):
      if type(a) is not type(b):
          sys.exit(f"{path}: expected {type(a).__name__} {a!r}, got {type(b).__name__} {b!r}")
      if isinstance(a, dict):
          if list(a) != list(b): sys.exit(f"{path}: keys {list(a)[:5]}… != {list(b)[:5]}…")
          for k in a: same(a[k], b[k], f"{path}.{k}")
      elif isinstance(a, list):
          if len(a) != len(b): sys.exit(f"{path}: {len(a)} items, got {len(b)}")
          for i, (x, y) in enumerate(zip(a, b)): same(x, y, f"{path}[{i}]")
      elif isinstance(a, float) and math.isnan(a):
          if not math.isnan(b): sys.exit(f"{path}: expected nan, got {b!r}")
      elif a != b:
          sys.exit(f"{path}: expected {a!r}, got {b!r}")

  mode, directory = sys.argv[1], sys.argv[2]
  if mode == "gen":
      for name, value in cases().items():
          for kind, fmt in (("xml", plistlib.FMT_XML), ("bin", plistlib.FMT_BINARY)):
              with open(f"{directory}/{name}.{kind}.plist", "wb") as f:
                  f.write(plistlib.dumps(value, fmt=fmt, sort_keys=False))
      for kind, fmt in (("xml", plistlib.FMT_XML), ("bin", plistlib.FMT_BINARY)):
          with open(f"{directory}/overflow.{kind}.plist", "wb") as f:
              f.write(plistlib.dumps({"big": 2**63}, fmt=fmt))
      with open(f"{directory}/expected.json", "w") as f:
          json.dump({name: describe(value) for name, value in cases().items()}, f)
  else:
      for name, value in cases().items():
          for kind, magic in (("xml", b"<?xml"), ("bin", b"bplist00")):
              with open(f"{directory}/swift-{name}.{kind}.plist", "rb") as f:
                  data = f.read()
              if not data.startswith(magic): sys.exit(f"{name}.{kind}: does not start with {magic!r}")
              same(value, plistlib.loads(data), f"{name}.{kind}")
      print("ok")
  """#

/// Runs `python3` with arguments; fails the test with a clear message when Python is missing.
private func python(_ arguments: [String]) async throws -> (status: Int32, output: String) {
  let result = try await Spawn.run("/usr/bin/env", ["python3"] + arguments)
  return (result.status, result.output + result.errors)
}

/// Turns the typed description written by the script into a tree.
private func expectedValue(_ json: Any) throws -> SettingValue {
  let node = try #require(json as? [String: Any])
  let value = node["v"]
  let kind: SettingValue.Kind
  switch node["t"] as? String {
  case "bool": kind = .bool(try need(value as? Bool))
  case "int": kind = .integer(try need(Int(try need(value as? String))))
  case "real": kind = .double(try need(Double(try need(value as? String))))
  case "string": kind = .string(try need(value as? String))
  case "data": kind = .data(try need(Data(base64Encoded: try need(value as? String))))
  case "date": kind = .date(Date(timeIntervalSince1970: Double(try need(value as? Int))))
  case "array": kind = .array(try need(value as? [Any]).map(expectedValue))
  case "dict":
    let pairs = try need(value as? [[Any]])
    kind = .table(SettingTable(try pairs.map { (try need($0[0] as? String), try expectedValue($0[1])) }))
  default: throw StrataError(.invalidValue, "unknown type in expected.json: \(node)")
  }
  return SettingValue(kind, origin: .runtime)
}

private func need<T>(_ value: T?) throws -> T {
  guard let value else { throw StrataError(.invalidValue, "malformed expected.json") }
  return value
}

/// The first place two trees differ, for messages.
private func difference(_ a: SettingValue, _ b: SettingValue, at path: String = "") -> String? {
  switch (a.kind, b.kind) {
  case (.table(let x), .table(let y)):
    if x.keys != y.keys { return "\(path): keys differ" }
    for (key, value) in x { if let d = difference(value, y[key]!, at: path + "." + key) { return d } }
    return nil
  case (.array(let x), .array(let y)):
    if x.count != y.count { return "\(path): \(x.count) items vs \(y.count)" }
    for (i, (p, q)) in zip(x, y).enumerated() {
      if let d = difference(p, q, at: "\(path)[\(i)]") { return d }
    }
    return nil
  default:
    return a == b ? nil : "\(path): \(a) vs \(b)"
  }
}

@Suite struct PropertyListCrossCheckTests {
  @Test func agreesWithPythonPlistlibBothWays() async throws {
    let probe = try? await python(["-c", "import plistlib"])
    guard let probe, probe.status == 0 else {
      Issue.record(
        "python3 with plistlib is required for the plistlib cross-check (CI installs it); got: \(probe?.output ?? "not found")"
      )
      return
    }
    let format = PropertyListFormat()
    try await withTemporaryDirectory { dir in
      let scriptPath = dir + "/plists.py"
      try write(script, to: scriptPath)
      let generated = try await python([scriptPath, "gen", dir])
      try #require(generated.status == 0, "plistlib failed to generate: \(generated.output)")

      let json = try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: dir + "/expected.json")))
      let cases = try #require(json as? [String: Any])
      #expect(cases.count == 4)
      for (name, description) in cases.sorted(by: { $0.key < $1.key }) {
        let expected = try expectedValue(description)
        for kind in ["xml", "bin"] {
          let path = "\(dir)/\(name).\(kind).plist"
          let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
          let document = try format.parse(bytes, path: path, options: ParseOptions())
          #expect(document.root == expected, "\(name).\(kind): \(difference(expected, document.root) ?? "")")
          guard case .file(_, let line, _) = document.root.origin else { continue }
          #expect(kind == "xml" ? line == 4 : line == 0, "\(name).\(kind) root line \(line)")
        }
        let xml = try format.serialize(expected)
        let binary = try format.serializeBinary(expected)
        try Data(xml).write(to: URL(fileURLWithPath: "\(dir)/swift-\(name).xml.plist"))
        try Data(binary).write(to: URL(fileURLWithPath: "\(dir)/swift-\(name).bin.plist"))
        #expect(try format.parse(xml, path: "x", options: ParseOptions()).root == expected)
        #expect(try format.parse(binary, path: "b", options: ParseOptions()).root == expected)
      }

      let checked = try await python([scriptPath, "check", dir])
      #expect(checked.status == 0, "plistlib disagrees with Strata's output: \(checked.output)")

      // 2^63 fits plistlib's unsigned 64-bit range, and Strata's.
      for kind in ["xml", "bin"] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/overflow.\(kind).plist")))
        let root = try format.parse(bytes, path: "o", options: ParseOptions()).root
        #expect(root.table?.entries.first?.value.kind == .unsignedInteger(UInt(1) << 63), "\(kind)")
      }
    }
  }
}

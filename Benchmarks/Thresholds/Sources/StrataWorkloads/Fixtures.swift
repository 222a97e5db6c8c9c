import Strata

/// The representative configuration the workloads parse and load: 20 sections (`section00` …) of 10
/// settings each (strings, integers, doubles, booleans and a short list), the same values written as
/// JSON, INI and an XML property list, plus a `server` section.
public enum Fixtures {
  /// The sections' names.
  static let sections = (0..<20).map { "section" + twoDigits($0) }

  /// The settings of one section, as (key, JSON value, INI value, plist element).
  static func settings(of section: Int) -> [(key: String, json: String, ini: String, plist: String)] {
    (0..<10).map { index in
      let key = "key" + twoDigits(index)
      switch index % 5 {
      case 0:
        return (
          key, "\"value \(section)-\(index)\"", "value \(section)-\(index)",
          "<string>value \(section)-\(index)</string>"
        )
      case 1:
        return (
          key, "\(section * 100 + index)", "\(section * 100 + index)",
          "<integer>\(section * 100 + index)</integer>"
        )
      case 2: return (key, "\(section).25", "\(section).25", "<real>\(section).25</real>")
      case 3: return (key, "true", "true", "<true/>")
      default:
        return (
          key, "[\"a\", \"b\", \"c\"]", "a, b, c",
          "<array><string>a</string><string>b</string><string>c</string></array>"
        )
      }
    }
  }

  /// The configuration as JSON.
  public static let json: String = {
    let body = sections.indices.map { section in
      let members = settings(of: section).map { "    \"\($0.key)\": \($0.json)" }.joined(separator: ",\n")
      return "  \"\(sections[section])\": {\n\(members)\n  }"
    }
    return "{\n\(body.joined(separator: ",\n"))\n}\n"
  }()

  /// The configuration as INI (lists as comma-separated strings).
  public static let ini: String = {
    sections.indices.map { section in
      "[\(sections[section])]\n" + settings(of: section).map { "\($0.key) = \($0.ini)\n" }.joined()
    }.joined(separator: "\n")
  }()

  /// The configuration as an XML property list.
  public static let xmlPlist: String = {
    let body = sections.indices.map { section in
      let members = settings(of: section).map { "    <key>\($0.key)</key>\($0.plist)\n" }.joined()
      return "  <key>\(sections[section])</key>\n  <dict>\n\(members)  </dict>\n"
    }
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
      \(body.joined())</dict>
      </plist>

      """
  }()

  /// 100 options, `--sectionNN.keyMM value`, over the first 10 sections.
  public static let commandLine: [String] = (0..<10).flatMap { section in
    (0..<10).flatMap { key in ["--" + sections[section] + ".key" + twoDigits(key), "\(section * 100 + key)"] }
  }

  /// The configuration (from its JSON) with `server.port` set to `port` and `server.name` to `bench`.
  static func serverTable(port: Int) -> SettingValue {
    let text = json.dropLast(2) + ",\n  \"server\": {\"port\": \(port), \"name\": \"bench\"}\n}\n"
    guard
      let document = try? FormatRegistry.standard.format(named: "json")?.parse(
        Array(text.utf8), path: "server.json", options: ParseOptions())
    else { preconditionFailure("the server fixture does not parse") }
    return document.root
  }

  /// `n` in two digits: `07`.
  static func twoDigits(_ n: Int) -> String {
    n < 10 ? "0\(n)" : "\(n)"
  }
}

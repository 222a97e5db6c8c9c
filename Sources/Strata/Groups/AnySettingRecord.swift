/// A setting of any type, for introspection: `group.allSettings`, `group.allSettings.filter { $0.traits.contains(.secret) }`.
public struct AnySettingRecord: Sendable, CustomStringConvertible {
  let box: any AnySettingBox

  /// The full dotted key.
  public var key: String { box.key }
  /// The property's name in its group.
  var propertyName: String { box.propertyName }
  /// The declared type, as written in Swift (`Int`, `[String]`, `Duration`).
  public var typeName: String { box.typeName }
  /// The effective value as text; `<redacted>` for secrets, `<missing>` for a required setting without
  /// a value.
  public var valueText: String { box.currentText().text }
  /// Where the effective value came from.
  public var origin: Origin { box.currentText().origin }
  /// The traits.
  public var traits: SettingTraits { box.traits }
  /// The one-line description the declaration gives (`help:`).
  public var help: String? { box.attributes.help }
  /// Whether the setting was declared without a default, so that some layer must set it.
  public var isRequired: Bool { box.isRequired }
  /// The old keys the setting still reads, in full (`server.maxConn`).
  public var aliases: [String] { box.aliases }
  /// The default as a tree (`nil` for a nil optional, or a required setting); secrets included, for
  /// schema export only.
  var defaultValue: SettingValue? { box.defaultSettingValue }

  /// `server.port = 8443 (/etc/demo/demo.ini:6:8)`, redacted for secrets; a struct whose fields came
  /// from several places names them (`fields from /etc/app/app.ini (enabled), default (others)`).
  public var description: String {
    "\(key) = \(box.currentText().text) (\(box.originDescription()))"
  }
}

/// Overrides of part of a struct setting: one field (`features.flags.newCheckout=false`), or some of
/// its fields as a JSON object (`features.flags={"newCheckout":false}`). The fields not given keep what
/// the layers below say, as a file that sets some fields keeps the default's others.
extension ControlAnswers {
  /// The setting that `key` names, or the struct setting one of whose fields it names, with the field's
  /// path inside the struct (`nil`: the key is the setting's own).
  func declaredSetting(forOverrideOf key: String) -> (box: any AnySettingBox, field: String?)? {
    if let box = store.declaredSetting(forKey: key) { return (box, nil) }
    let names = SettingKey.names(in: key)
    for count in stride(from: names.count - 1, through: 1, by: -1) {
      let parent = SettingKey.join(names[..<count])
      if let box = store.declaredSetting(forKey: parent), box.fieldShape != nil {
        return (box, SettingKey.join(names[count...]))
      }
    }
    return nil
  }

  /// The runtime value an override of `box` (or of `field` inside it) with `text` sets at the key
  /// given, checked as a whole against the setting with the fields not given taken from its running
  /// value.
  /// - Throws: what the setting says of the whole (a type, a validation), or an unknown field.
  func overrideValue(
    of box: any AnySettingBox, field: String?, text: String
  ) throws(StrataError) -> SettingValue? {
    let given = SettingValue(.string(text), origin: .runtime)
    if let field {
      var whole = box.currentValue().value ?? .emptyTable(origin: .runtime)
      whole.set(given, at: field)
      guard let checked = try box.checkedWrite(whole), let value = checked.value(at: field) else {
        throw StrataError(.unknownKey, "\(box.key) has no field '\(field)'\(fieldList(of: box))")
      }
      return value
    }
    guard box.fieldShape != nil, text.drop(while: { $0 == " " }).hasPrefix("{"),
      let partial = try? JSONFormat().parse(Array(text.utf8), path: "override", options: ParseOptions()).root,
      partial.isTable
    else {
      return try box.checkedWrite(given)
    }
    var whole = box.currentValue().value ?? .emptyTable(origin: .runtime)
    whole.merge(partial)
    guard let checked = try box.checkedWrite(whole) else { return nil }
    // Only the fields given: the others stay the layers' below.
    var value = SettingValue.emptyTable(origin: .runtime)
    var unknown: [String] = []
    partial.forEachLeaf { path, _ in
      if let field = checked.value(at: path) { value.set(field, at: path) } else { unknown.append(path) }
    }
    guard unknown.isEmpty else {
      throw StrataError(
        .unknownKey, "\(box.key) has no field '\(unknown.joined(separator: "', '"))'\(fieldList(of: box))")
    }
    return value
  }

  private func fieldList(of box: any AnySettingBox) -> String {
    var names: [String] = []
    box.defaultSettingValue?.forEachLeaf { path, _ in names.append(path) }
    return names.isEmpty ? "" : " (its fields: \(names.joined(separator: ", ")))"
  }
}

/// The `env` format: `export PREFIX_KEY=value` lines, with origins as trailing comments.
enum EnvironmentDump {
  static func render(_ entries: [Snapshot.Entry], options: DumpOptions) throws(StrataError) -> String {
    guard let prefix = options.environmentPrefix else {
      throw StrataError(
        .invalidValue, "the env format needs a variable prefix (--app NAME or --env-prefix PREFIX)")
    }
    var out = ""
    for entry in entries {
      if case .table = entry.value.kind { continue }
      let name = EnvironmentNames.variableName(forKey: entry.key, prefix: prefix)
      out += "export \(name)=\(ValueText.shellQuoted(ValueText.environment(entry.value)))"
      if options.showOrigin { out += "  # \(entry.origin)" }
      out += "\n"
    }
    return out
  }
}

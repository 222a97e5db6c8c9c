import Strata

/// The text of `config-dump --help`; the formats listed are those the tool reads with.
var usage: String {
  """
  USAGE: config-dump [options] [FILE...]

  Prints the merged effective configuration, with where each value came from.

  Sources (lowest first; later wins per key, tables merge, arrays replace):
    FILE...               files stacked in the order given, each read by its extension:
                          \(extensionList)
                          (.plist: XML or binary; .env and a file named .env: dotenv)
  \(optionLines(.sources))

  Output:
  \(optionLines(.output))

  Running service (instead of files):
  \(optionLines(.running))

  Exit status:
    0  success
    1  configuration errors (reported on stderr; everything that loaded is still printed)
    2  usage error
    3  --key names a key that does not exist

  Environment variables: a known key server.maxConnections is overridden by
  PREFIX_SERVER_MAX_CONNECTIONS; other PREFIX_ variables map by "__" (PREFIX_DB__POOL_SIZE sets
  db.pool_size) and are reported as unknown by --check.

  """
}

/// The help lines of a section's options, from ``Option/all``.
private func optionLines(_ section: Option.Section) -> String {
  Option.all.filter { $0.section == section }.flatMap(\.helpLines).joined(separator: "\n")
}

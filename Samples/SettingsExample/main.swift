import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

// The C library, whichever this system has (a program's own chain: Strata's platform layer is not
// part of its API).
#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// Declares the demo server's settings as typed groups, loads them from the demo tree (or the real
// system with --root /), and prints each value with where it came from.
//
//   swift run settings-example                      # Samples/demo as the root
//   swift run settings-example --print-schema       # the JSON Schema of these settings

let arguments = Array(CommandLine.arguments.dropFirst())
var root = "Samples/demo"
if let index = arguments.firstIndex(of: "--root"), index + 1 < arguments.count { root = arguments[index + 1] }

// The demo tree's user file lives at /home/user inside the root.
var environment = ProcessInfo.processInfo.environment
environment["HOME"] = "/home/user"
environment["XDG_CONFIG_HOME"] = nil

let store = SettingsStore(app: "demo", root: root == "/" ? nil : root, environment: environment)
let server = ServerSettings(store: store)
let log = LogSettings(store: store)
let database = DatabaseSettings(store: store)

if arguments.contains("--print-schema") {
  let schema = store.jsonSchema(title: "demo settings")
  let json = FormatRegistry.standard.format(named: "json")!
  print(String(decoding: try json.serialize(schema), as: UTF8.self), terminator: "")
  exit(0)
}

// Typed reads: these are Int, Duration, [String], a struct, an enum, a URL.
print("listening on \(server.host):\(server.port), up to \(server.maxConnections) connections")
print("requests time out after \(server.requestTimeout); CORS origins: \(server.allowedOrigins)")
print("TLS \(server.tls.enabled ? "on" : "off") with \(server.tls.certPath)")
print("log level \(log.level), format \(log.format); database \(database.url) (pool \(database.poolSize))")
print("")

// Every setting, with its origin; secrets are redacted.
for record in server.allSettings + log.allSettings + database.allSettings {
  let padded = record.key.padding(toLength: 24)
  print("\(padded) \(record.valueText.padding(toLength: 44)) \(record.origin)")
}

// What the files say that no setting declares, and values that did not convert.
let diagnostics = store.diagnostics
if !diagnostics.isEmpty {
  print("")
  for diagnostic in diagnostics { print(diagnostic) }
}

extension String {
  fileprivate func padding(toLength length: Int) -> String {
    count >= length ? self : self + String(repeating: " ", count: length - count)
  }
}

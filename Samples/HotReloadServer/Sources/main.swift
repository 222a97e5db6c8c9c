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

// A small HTTP server configured by typed settings groups from layered files, that adapts to edits of
// its files while it runs. See README.md.

func say(_ text: String, to fd: Int32 = STDOUT_FILENO) {
  let bytes = Array((text + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
  guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
  return arguments[index + 1]
}
if arguments.contains("--help") {
  say(
    """
    USAGE: hot-reload-server [--root DIR] [--dump-config] [--print-schema]
      --root DIR       read /etc/hotreload/… under DIR (default: Samples/HotReloadServer/root)
      --dump-config    print the effective configuration with origins (secrets redacted) and exit
      --print-schema   print the JSON Schema of the settings and exit
    Endpoints: GET / (greeting), GET /config, GET /status, POST /echo (Bearer admin.token; body limit).
    Environment: HOTRELOAD_GREETING_NAME=… and friends override the files.
    Control socket: $RUNTIME_DIRECTORY/control.sock (else $XDG_RUNTIME_DIR/hotreload/ or /run/hotreload/),
      for config-dump --running hotreload.
    """)
  exit(0)
}
// SIGTERM (systemctl stop, a test's clean-up) and SIGINT (Ctrl-C) stop the server: their handler
// writes a byte to a pipe (`write` is one of the few calls a signal handler may make), a thread of its
// own reads it, and the server's parts are cancelled, so that the store's run loop ends normally and
// tells systemd STOPPING=1. The handler reads only this file's global, set before it is installed
// (a global of main.swift is initialized in place, as the file's code runs).
nonisolated(unsafe) var stopPipeWriteEnd: Int32 = -1
let stopRequested = Termination.readingAPipe { stopPipeWriteEnd = $0 }
var endSignals = sigset_t()
sigemptyset(&endSignals)
for ending in [SIGTERM, SIGINT] {
  sigaddset(&endSignals, ending)
  _ = signal(ending) { _ in
    var byte: UInt8 = 1
    _ = write(stopPipeWriteEnd, &byte, 1)
  }
}
// Whoever started the server may have left them blocked (the mask is inherited through exec).
pthread_sigmask(SIG_UNBLOCK, &endSignals, nil)
// From the start: `systemctl reload` while the files load must reload, not kill the server.
SettingsStore.catchHangupSignals()
let root = option("--root") ?? "Samples/HotReloadServer/root"
var environment = ProcessInfo.processInfo.environment
environment["HOME"] = "/home/user"  // the user layer lives inside the root
environment["XDG_CONFIG_HOME"] = nil

let store = SettingsStore(app: "hotreload", root: root, environment: environment)
let listening = ListenSettings(store: store)
let greeting = GreetingSettings(store: store)
let limits = LimitSettings(store: store)
let admin = AdminSettings(store: store)

/// The effective configuration as JSON, `{"key": {"value": …, "origin": "file:line:column"}}` (values as
/// the layers give them), declared secrets and secret sources redacted: built from the public snapshot
/// and written by the JSON format.
func configJSON() -> String {
  let entries = store.snapshot.entries.map { entry in
    let value = entry.isSecret ? SettingValue(.string("<redacted>"), origin: entry.value.origin) : entry.value
    let fields = SettingTable([
      ("value", value), ("origin", SettingValue(.string(entry.value.origin.description), origin: .runtime)),
    ])
    return (entry.key, SettingValue(.table(fields), origin: .runtime))
  }
  let json = try? FormatRegistry.standard.format(named: "json")?.serialize(
    SettingValue(.table(SettingTable(entries)), origin: .runtime))
  return json.map { String(decoding: $0, as: UTF8.self) } ?? "{}\n"
}

if arguments.contains("--dump-config") {
  print(configJSON(), terminator: "")
  exit(0)
}
if arguments.contains("--print-schema") {
  let schema = store.jsonSchema(title: "hotreload settings")
  let json = try? FormatRegistry.standard.format(named: "json")?.serialize(schema)
  print(String(decoding: json ?? [], as: UTF8.self), terminator: "")
  exit(0)
}
func handle(_ request: Request) -> Response {
  switch (request.method, request.path) {
  case ("GET", "/"):
    // Both read from one generation: an edit that changes both never shows half of itself.
    let text = greeting.withConsistentSnapshot { "\($0.message), \($0.name)!\n" }
    return Response(status: 200, reason: "OK", body: text)
  case ("GET", "/config"):
    return Response(status: 200, reason: "OK", contentType: "application/json", body: configJSON())
  case ("GET", "/status"):
    let pending = store.pendingRestarts.map { "\"\($0.description)\"" }.joined(separator: ", ")
    return Response(
      status: 200, reason: "OK", contentType: "application/json",
      body: "{\"generation\": \(store.snapshot.generation), \"pendingRestart\": [\(pending)]}\n")
  case ("POST", "/echo"):
    guard request.headers["authorization"] == "Bearer \(admin.token)" else {
      return Response(status: 401, reason: "Unauthorized", body: "missing or wrong bearer token\n")
    }
    let limit = limits.maxBodyBytes
    guard request.body.count <= limit else {
      return Response(status: 413, reason: "Content Too Large", body: "body over \(limit) bytes\n")
    }
    return Response(status: 200, reason: "OK", body: String(decoding: request.body, as: UTF8.self))
  default:
    return Response(status: 404, reason: "Not Found", body: "not found\n")
  }
}

let listener: Listener
do {
  listener = try Listener(host: listening.host, port: listening.port)
} catch {
  say("hot-reload-server: \(error)", to: STDERR_FILENO)
  exit(1)
}
say("listening on http://\(listening.host):\(listener.port)")
// The server's parts run as children of one task group until SIGTERM or SIGINT: then the group is
// cancelled, the store's run loop says STOPPING=1 and returns, and so do the other parts. The accept
// loop blocks its thread, so it gets a thread of its own rather than one of the pool's.
try? await withThrowingDiscardingTaskGroup { group in
  group.addTask {
    await stopRequested.wait()
    throw CancellationError()  // cancels the other parts
  }
  // Log what changes: a new subscription to `events` first hears every problem standing now
  // (start-up ones included) as a `diagnosed` event, so printing `store.diagnostics` too would print
  // each of them twice.
  group.addTask {
    for await event in store.events { say("config: \(event)", to: STDERR_FILENO) }
  }
  // Keep watching the files. Under systemd (Type=notify-reload, see hotreload.service): READY=1 once
  // the files are watched, RELOADING=1 … READY=1 around each SIGHUP; outside systemd the notifier does
  // nothing.
  group.addTask {
    await store.run(reloadOnHangup: true, notifySystemd: true)
  }
  // `config-dump --running hotreload` asks this process what it uses now, plans an edit against it and
  // sets time-limited overrides, through a socket in its runtime directory (RuntimeDirectory= in
  // hotreload.service; else $XDG_RUNTIME_DIR/hotreload or /run/hotreload) that only its user and root
  // may open.
  group.addTask {
    do {
      try await store.serveControl()
    } catch  where !Task.isCancelled {
      say("hot-reload-server: no control socket: \(error)", to: STDERR_FILENO)
    } catch {}
  }
  group.addTask {
    await listener.serveOnItsOwnThread(handle)
  }
}

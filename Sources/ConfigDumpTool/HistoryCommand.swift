import Strata
import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `config-dump --running APP --history [--since DURATION]`: the service's configuration history, read
/// from its state directory (the service need not run). With `--pid N` or `--socket PATH` the running
/// service says where it writes its history.
extension RunningCommand {
  func history(output: (String) -> Void, errors: (String) -> Void) -> ExitStatus {
    let app: String
    let directory: String
    if let running = arguments.running {
      app = running
      guard
        let found = StateDirectory.of(app: app, environment: environment, isRoot: StateDirectory.isRoot)
      else {
        errors("config-dump: no state directory for \(app): neither STATE_DIRECTORY nor HOME is set\n")
        return .configurationError
      }
      directory = found
    } else {
      do throws(StrataError) {
        let path = try socketPath()
        let response = try ControlClient.send(ControlRequest(request: "status"), to: path)
        guard response.ok, let status = response.status else {
          errors("config-dump: the service refused: \(response.error ?? "no reason given")\n")
          return .configurationError
        }
        app = status.app ?? "process \(status.pid)"
        guard let written = status.historyDirectory else {
          errors(
            "config-dump: \(app) writes no history (a store made with SettingsStore(app:) writes one while "
              + "it runs); give --running APP to read an app's state directory\n")
          return .configurationError
        }
        directory = written
      } catch {
        errors("config-dump: \(error)\n")
        return .configurationError
      }
    }
    guard HistoryJournal.files(in: directory).contains(where: { access($0, R_OK) == 0 }) else {
      errors(
        "config-dump: no history of \(app) in \(directory) (a service writes it there while its store "
          + "runs; run as the service's user or root)\n")
      return .configurationError
    }
    let since = arguments.since.map { Date().timeIntervalSince1970 - $0 }
    let entries = HistoryJournal.read(directory: directory, since: since)
    if arguments.format == .json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
      output(String(decoding: (try? encoder.encode(entries)) ?? Data("[]".utf8), as: UTF8.self) + "\n")
      return .success
    }
    var text = "\(app): configuration history (\(directory))\n"
    if entries.isEmpty { text += "  nothing changed\(arguments.since == nil ? "" : " in that time")\n" }
    for entry in entries {
      let dropped = entry.dropped.map { " (\($0) entries before it were lost: the writer fell behind)" } ?? ""
      if entry.event == "start" {
        text += "\(entry.time)  generation \(entry.generation): the service started\(dropped)\n"
        continue
      }
      text += "\(entry.time)  generation \(entry.generation)\(dropped)\n"
      for change in entry.changes ?? [] {
        text +=
          "  \(change.key): \(change.old ?? "(none)") -> \(change.new ?? "(none)")  "
          + "\(change.origin) (\(change.cause))\n"
      }
      if let omitted = entry.omitted { text += "  and \(omitted) more\n" }
    }
    output(text)
    return .success
  }
}

public import Strata
import StrataPlatform
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The exit statuses `--help` documents.
enum ExitStatus: Int32 {
  case success = 0
  case configurationError = 1
  case usageError = 2
  case keyNotFound = 3
}

/// Writes all of `text` to a file descriptor (unbuffered, so stdout and stderr interleave in order).
func write(_ text: String, to fd: Int32) {
  // A closed pipe (`config-dump | head`): nothing more can be said, and a watch has no reader left.
  if !Syscall.writeAll(fd, text) && errno == EPIPE && fd == STDOUT_FILENO { exit(0) }
}

func writeError(_ text: String) { write(text, to: STDERR_FILENO) }
func writeOutput(_ text: String) { write(text, to: STDOUT_FILENO) }

func exit(_ status: ExitStatus) -> Never {
  exit(status.rawValue)
}

/// `config-dump` as a library, so that a program can build the tool with more formats registered (the
/// Integrations package's `config-dump-yaml` adds YAML):
///
/// <!-- snippet: Integrations/Tools/ConfigDumpYAML/main.swift#config-dump-yaml -->
/// ```swift
/// ConfigDump.main(formats: FormatRegistry.standard.registering(YAMLFormat()))
/// ```
///
/// `main` is synchronous: a program whose top level awaits nothing starts without Swift's asynchronous
/// main, which hands the main thread to Dispatch by ending it (`pthread_exit`); ending a thread unwinds
/// it, and in a static executable the first unwind sorts every unwind-table entry of the binary (libgcc
/// does so for frames registered at start), which was most of `config-dump --key`'s start. Only
/// `--watch` runs asynchronous work, on a task of its own.
///
/// Everything else, the options, the output and the exit statuses, is `config-dump`'s (see its `--help`
/// and the catalog's config-dump article).
public enum ConfigDump {
  /// Runs `config-dump` with the process's arguments and exits with its status.
  /// - Parameter formats: the formats FILE arguments, the app's files and `--input-format` are read
  ///   with, and that `--help` lists.
  public static func main(formats: FormatRegistry = .standard) -> Never {
    toolFormats.withLock { $0 = formats }
    // A closed pipe must end the write, not kill the process mid-output with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)

    let arguments: Arguments
    do {
      arguments = try Arguments.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
      writeError("config-dump: \(error.message)\nRun 'config-dump --help' for usage.\n")
      exit(.usageError)
    }
    if arguments.help {
      writeOutput(usage)
      exit(.success)
    }
    if arguments.asksRunningService {
      let running = RunningCommand(arguments: arguments, environment: RawEnvironment.variables())
      exit(running.run(output: writeOutput, errors: writeError))
    }

    // A reload request (SIGHUP) during a slow start must be queued for the watch, not end the process.
    if arguments.watch { SettingsStore.catchHangupSignals() }

    var environment = RawEnvironment.variables()
    if let app = arguments.app, let profile = arguments.profile {
      environment[EnvironmentNames.prefix(forApp: app) + "_PROFILE"] = profile
    }
    let command = DumpCommand(arguments: arguments, environment: environment)
    let loaded = Loaded()
    // The watch's store is made first and the dump prints its first snapshot, so the watch starts from the
    // values shown.
    let schema = arguments.watch ? try? command.loadSchema() : nil
    let watched = arguments.watch ? command.watchedStore(schema: schema) : nil
    let status = command.run(
      output: writeOutput, errors: writeError, raw: watched?.store.snapshot, loaded: { loaded.snapshot = $0 })
    guard arguments.watch, status != .usageError else { exit(status) }
    // Ctrl-C and SIGTERM end the watch cleanly; every line was already written, unbuffered.
    signal(SIGINT) { _ in _exit(0) }
    signal(SIGTERM) { _ in _exit(0) }
    OutputClosed.exitWhenClosed()
    guard let watched else { exit(.success) }
    let dumped = loaded.snapshot
    Task.detached {
      await command.watch(watched, from: dumped, schema: schema, output: { writeOutput($0) })
      exit(.success)
    }
    // The main thread waits for signals (their handlers end the process, or queue a reload) while the
    // watch runs on the task; the watch's end exits the process.
    while true { pause() }
  }
}

/// What the watch's first dump printed, so that the watch starts from the values shown.
private final class Loaded { var snapshot: Snapshot? }

/// The formats this run of the tool reads with: set once by ``ConfigDump/main(formats:)`` before
/// anything reads it.
let toolFormats = Mutex(FormatRegistry.standard)

/// The formats this run of the tool reads with.
var formats: FormatRegistry { toolFormats.withLock { $0 } }

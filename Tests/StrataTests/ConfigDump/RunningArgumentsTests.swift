import Testing

/// The command lines `--running` takes and refuses (usage errors: exit 2, nothing asked).
struct RunningArgumentsTests {
  @Test(arguments: [
    (
      ["--plan", "x.ini"],
      "--plan, --set and --unset ask a running service: give --running APP, --pid N or --socket PATH"
    ),
    (["--running", "demo", "--pid", "1"], "give one of --running APP, --pid N and --socket PATH"),
    (["--running", "demo", "--set", "log.level=debug"], "--set needs --for DURATION (such as 15m)"),
    (
      ["--running", "demo", "--set", "log.level", "--for", "1m"],
      "--set takes KEY=VALUE, such as log.level=debug"
    ),
    (
      ["--running", "demo", "--set", "a=b", "--for", "15x"],
      "--for takes a duration such as 15m, 1h30m or 90s, not '15x'"
    ),
    (["--running", "demo", "--for", "1m"], "--for goes with --set"),
    (["--running", "demo", "--plan", "a.ini", "--unset", "a"], "give one of --plan, --set and --unset"),
    (["--running", "demo", "--show-secrets"], "a service never sends its secrets"),
    (["--running", "demo", "--format", "ini"], "with --running, --format is table or json"),
    (["--running", "demo", "--app", "demo"], "--running, --pid and --socket ask the service itself"),
    (["--running", "../demo"], "--running takes an app name such as 'demo', not '../demo'"),
    (["--pid", "x"], "--pid takes a process id, not 'x'"),
  ])
  func aCommandLineThatCannotAskIsAUsageError(arguments: [String], message: String) async throws {
    let run = try await runConfigDump(arguments)
    #expect(run.status == 2, "\(run)")
    #expect(run.errors.contains(message), "\(run)")
  }

  @Test func theHelpListsTheRunningServiceOptions() async throws {
    let run = try await runConfigDump(["--help"])
    for option in [
      "--running APP", "--pid N", "--socket PATH", "--plan FILE", "--as PATH", "--set KEY=VALUE",
      "--for DURATION", "--unset KEY",
    ] {
      #expect(run.output.contains("  \(option)"), "\(option)")
    }
  }
}

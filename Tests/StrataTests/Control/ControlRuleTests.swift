import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// A group's rules over the control socket: `--running` lists a broken rule with the rejected edits, and
/// `--plan` judges the candidate's values by the service's own rules.
@Suite(.linuxOnly("the control socket's peer check")) struct ControlRuleTests {
  @Test func runningListsABrokenRuleAndAPlanThatWouldBreakOneIsRejected() async throws {
    try await withTemporaryDirectory { dir in
      try write("[pool]\nminConnections = 2\nmaxConnections = 4\n", to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let pool = RulePoolSettings(store: store)
      let control = try store.startControl(
        at: dir + "/control.sock", clock: ManualControlClock(), mode: 0o600, environment: [:])
      defer { control.stop() }

      // A plan whose values break the rule: rejected, and none of the group's changes listed.
      try write("[pool]\nminConnections = 9\nmaxConnections = 4\nname = big\n", to: dir + "/candidate.ini")
      let plan = try await runConfigDump(
        ["--socket", control.path, "--plan", dir + "/candidate.ini", "--as", dir + "/app.ini"], in: dir)
      #expect(plan.status == 1, "\(plan)")
      #expect(
        plan.output
          == "Plan for \(dir)/app.ini (nothing applied):\n"
          + "  rejected  \(dir)/app.ini:2:18: RulePoolSettings (section pool) breaks its rule 'minConnections <= "
          + "maxConnections': pool.minConnections = 9 (\(dir)/app.ini:2:18), pool.maxConnections = 4 "
          + "(\(dir)/app.ini:3:18); the group would keep its running values\n", "\(plan)")
      // One that keeps it: the changes, as for any plan.
      try write("[pool]\nminConnections = 3\nmaxConnections = 4\n", to: dir + "/candidate.ini")
      let good = try await runConfigDump(
        ["--socket", control.path, "--plan", dir + "/candidate.ini", "--as", dir + "/app.ini"], in: dir)
      #expect(good.status == 0 && good.output.contains("  change    pool.minConnections: 2 -> 3"), "\(good)")

      // Applied, the breaking edit is held, and --running says why.
      try write("[pool]\nminConnections = 9\nmaxConnections = 4\n", to: dir + "/app.ini")
      await store.reload()
      #expect(pool.minConnections == 2 && pool.maxConnections == 4)
      let status = try await runConfigDump(["--socket", control.path], in: dir)
      #expect(
        status.output.contains(
          "\nRejected edits:\n  \(dir)/app.ini:2:18: RulePoolSettings (section pool) breaks its rule "
            + "'minConnections <= maxConnections': pool.minConnections = 9"), "\(status)")
      // The running values keep their origins; the files' values are listed as what differs on disk.
      #expect(status.output.contains("Differs from the files on disk now:\n  pool.minConnections: running 2"))
    }
  }
}

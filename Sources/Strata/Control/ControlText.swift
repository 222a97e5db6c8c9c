/// The text `config-dump --running` prints for a service's answers.
package enum ControlText {
  /// The live configuration: a header, the values as a table, then each list that is not empty.
  package static func status(_ status: ControlStatus) -> String {
    var text =
      "\(status.app ?? "service") (pid \(status.pid)): generation \(status.generation), loaded \(status.loadedAt)\n\n"
    let keyWidth = max(3, status.settings.map(\.key.count).max() ?? 0)
    let valueWidth = min(48, max(5, status.settings.map { ($0.value ?? "(none)").count }.max() ?? 0))
    func padded(_ text: String, _ width: Int) -> String {
      text + String(repeating: " ", count: max(0, width - text.count))
    }
    text += "\(padded("KEY", keyWidth))  \(padded("VALUE", valueWidth))  ORIGIN\n"
    for setting in status.settings {
      text +=
        "\(padded(setting.key, keyWidth))  \(padded(setting.value ?? "(none)", valueWidth))  \(setting.origin)\n"
    }
    if !status.overrides.isEmpty {
      text += "\nOverrides (in memory until they expire or the process ends; --unset KEY ends one now):\n"
      for override in status.overrides {
        text += "  \(override.key) = \(override.value)  (\(duration(override.remainingSeconds)) left)\n"
      }
    }
    if !status.rejected.isEmpty {
      text += "\nRejected edits:\n"
      for problem in status.rejected { text += "  \(problem.description)\n" }
    }
    if !status.pendingRestarts.isEmpty {
      text += "\nPending restart (a restart picks up the new value):\n"
      for pending in status.pendingRestarts {
        text +=
          "  \(pending.key): running \(pending.running ?? "(none)"), \(pending.other ?? "(none)") after a restart (\(pending.otherOrigin))\n"
      }
    }
    if !status.differsFromDisk.isEmpty {
      text += "\nDiffers from the files on disk now:\n"
      for difference in status.differsFromDisk {
        text +=
          "  \(difference.key): running \(difference.running ?? "(none)") (\(difference.runningOrigin)), "
          + "on disk \(difference.other ?? "(none)") (\(difference.otherOrigin))\n"
      }
    }
    if !status.failing.isEmpty {
      text += "\nFiles that fail to load (their last good contents stay in use):\n"
      for problem in status.failing { text += "  \(problem.description)\n" }
    }
    if let rolledBack = status.rolledBack, !rolledBack.isEmpty {
      text += "\nRolled back (--unset KEY, or an edit of the key, ends it): \(status.rollbackReason ?? "")\n"
      for value in rolledBack { text += "  \(value.key) = \(value.value ?? "(none)")  (\(value.origin))\n" }
    }
    if let neverRead = status.neverRead, !neverRead.isEmpty {
      text += "\nNever read by the program since it started:\n"
      for key in neverRead { text += "  \(key)\n" }
    }
    if let unknown = status.unknownKeys, !unknown.isEmpty {
      text += "\nSet in the files, read by no setting:\n"
      for problem in unknown { text += "  \(problem.description)\n" }
    }
    return text
  }

  /// What a plan found, one line each, or that nothing would change.
  package static func plan(_ plan: ControlPlan) -> String {
    var text = "Plan for \(plan.target) (nothing applied):\n"
    for problem in plan.errors {
      text += "  refused   \(problem.description); the file would not be applied\n"
    }
    for change in plan.changes {
      text +=
        "  change    \(change.key): \(change.running ?? "(none)") -> \(change.other ?? "(none)") (\(change.otherOrigin))\n"
    }
    for change in plan.pendingRestart {
      text +=
        "  restart   \(change.key): running \(change.running ?? "(none)"), \(change.other ?? "(none)") after a restart (\(change.otherOrigin))\n"
    }
    for problem in plan.rejected { text += "  rejected  \(problem.description)\n" }
    for problem in plan.unknownKeys { text += "  unknown   \(problem.description)\n" }
    if plan.errors.isEmpty && plan.changes.isEmpty && plan.pendingRestart.isEmpty && plan.rejected.isEmpty
      && plan.unknownKeys.isEmpty
    {
      text += "  no running value would change\n"
    }
    return text
  }

  /// The override just set.
  package static func override(_ override: ControlOverride) -> String {
    "\(override.key) = \(override.value) for \(duration(override.remainingSeconds)), in memory only "
      + "(a restart ends it); --unset \(override.key) ends it now\n"
  }

  /// `14m 59s`, `1h 0m`, `45s`.
  package static func duration(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded(.up))
    let (hours, minutes, rest) = (whole / 3600, whole % 3600 / 60, whole % 60)
    if hours > 0 { return "\(hours)h \(minutes)m" }
    if minutes > 0 { return "\(minutes)m \(rest)s" }
    return "\(rest)s"
  }
}

import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the control socket's `status` tells: the running values and everything that differs from them.
extension ControlAnswers {
  /// The live configuration: running values with origins, overrides, standing rejected edits, pending
  /// restarts, what differs from the files on disk now, and files that fail to load. Secrets redacted.
  func status() -> ControlStatus {
    let boxes = store.declaredSettings
    let loadedAt = store.publishedAt
    let snapshot = store.snapshot
    var settings: [ControlValue] = []
    if boxes.isEmpty {
      let shown = snapshot.redacting(snapshot.secretKeys)
      settings = shown.entries.map {
        ControlValue(key: $0.key, value: ValueText.plain($0.value), origin: $0.origin.description)
      }
    }
    var rejected: [ControlProblem] = []
    var differs: [ControlDifference] = []
    let disk = store.dryLoad(includingRuntime: false)
    var runningOrigins: [String: String] = [:]
    for box in boxes {
      let running = box.currentValue()
      let isSecret = box.traits.contains(.secret)
      runningOrigins[box.key] = runningOrigins[box.key] ?? running.origin.description
      // A struct whose fields came from several places: each field with its own origin, as the files'
      // view shows them (a field no layer sets is the default's).
      let fields = box.fieldShape == nil ? [:] : box.fieldOrigins()
      if !fields.isEmpty, let tree = running.value, tree.isTable {
        tree.forEachLeaf(prefix: box.key) { fieldKey, value in
          settings.append(
            ControlValue(
              key: fieldKey, value: shown(value, isSecret),
              origin: (fields[fieldKey] ?? Origin.codeDefault).description))
        }
      } else {
        settings.append(
          ControlValue(
            key: box.key, value: shown(running.value, isSecret), origin: running.origin.description))
      }
      if let (error, kept) = box.standingRejection() {
        var error = error
        if kept && !error.message.hasSuffix("the running value is kept") {
          error.message += "; the running value is kept"
        }
        rejected.append(ControlProblem(key: box.key, error))
      }
      let onDisk = box.resolvedWithoutApplying(in: disk)
      if onDisk.rejection == nil, onDisk.value != running.value {
        differs.append(
          ControlDifference(
            key: box.key, running: shown(running.value, isSecret), runningOrigin: running.origin.description,
            other: shown(onDisk.value, isSecret), otherOrigin: onDisk.origin.description))
      }
    }
    // A group that breaks one of its rules keeps every running value: the rule, with the values it read.
    rejected += store.brokenRuleDiagnostics.map { ControlProblem(key: nil, $0.error) }
    let rollback = store.standingRollback
    return ControlStatus(
      app: store.app, pid: getpid(), generation: snapshot.generation, loadedAt: ISODateText.format(loadedAt),
      settings: settings, overrides: overrides.standing, rejected: rejected,
      pendingRestarts: store.pendingRestarts.map {
        ControlDifference(
          key: $0.key, running: $0.runningValue, runningOrigin: runningOrigins[$0.key] ?? "",
          other: $0.newValue, otherOrigin: $0.origin.description)
      },
      differsFromDisk: differs,
      failing: snapshot.diagnostics.filter { $0.severity == .error }.map {
        ControlProblem(key: nil, $0.error)
      },
      neverRead: boxes.filter { !$0.wasReadByProgram }.map(\.key),
      unknownKeys: boxes.isEmpty
        ? nil
        : store.diagnostics.filter { $0.error.code == .unknownKey }.map {
          ControlProblem(key: nil, $0.error)
        },
      rolledBack: rollback?.values.map { ControlValue(key: $0.key, value: $0.value, origin: $0.origin) },
      rollbackReason: rollback?.reason,
      historyDirectory: store.writtenHistoryDirectory
    )
  }

  /// A value as the control socket shows it: plain text, redacted for a secret.
  func shown(_ value: SettingValue?, _ isSecret: Bool) -> String? {
    guard let value else { return nil }
    return isSecret ? redactedText : ValueText.plain(value)
  }
}

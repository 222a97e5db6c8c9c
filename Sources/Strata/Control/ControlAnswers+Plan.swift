/// The control socket's `plan`: what a candidate file would do to the running process, applied nowhere.
extension ControlAnswers {
  /// Plans `request.content` as the new text of one of the service's files: which running values
  /// would change, which would wait for a restart, which would be rejected (and why), which keys are
  /// unknown; or why the file as a whole would be refused.
  func plan(_ request: ControlRequest) -> ControlResponse {
    guard let content = request.content, let given = request.target ?? request.path else {
      return .failure("plan needs the candidate's content and path")
    }
    // The documents of files: not the environment's, the command line's or the runtime values'.
    let files = Set(
      store.snapshot.sources.filter { ![.environment, .commandLine, .runtime].contains($0.scope) }.map(
        \.document.path))
    let target: String
    if files.contains(given) {
      target = given
    } else {
      let name = lastComponent(of: given)
      let matching = files.filter { lastComponent(of: $0) == name }.sorted()
      guard matching.count == 1, request.target == nil else {
        let list = files.sorted().joined(separator: ", ")
        return .failure(
          matching.count > 1
            ? "\(name) could stand for \(matching.joined(separator: " or ")); say which with --as PATH"
            : "the service reads no file \(request.target ?? String(name)); its files: \(list)")
      }
      target = matching[0]
    }
    var plan = ControlPlan(
      target: target, changes: [], pendingRestart: [], rejected: [], unknownKeys: [], errors: [])
    let bytes = Array(content.utf8)
    guard let format = store.stack.options.formats.format(forPath: target) else {
      return .failure(store.stack.options.formats.unknownType(target).description)
    }
    let document: Document
    do throws(StrataError) {
      if bytes.count > store.stack.options.maxFileSize {
        throw StrataError(
          .fileTooLarge, "\(bytes.count) bytes, over the limit of \(store.stack.options.maxFileSize)",
          path: target)
      }
      document =
        isBlankDocument(bytes)
        ? Document(path: target, root: .emptyTable(origin: .file(path: target, line: 0, column: 0)))
        : try format.parse(bytes, path: target, options: store.stack.options)
    } catch {
      plan.errors = [ControlProblem(key: nil, error)]
      return ControlResponse(ok: true, plan: plan)
    }
    let base = store.dryLoad(includingRuntime: true)
    let candidate = store.dryLoad(includingRuntime: true, replacing: document)
    // A group whose rules the candidate's values break would keep every running value: the rule, and
    // none of the group's changes.
    var held: Set<String> = []
    for (keys, error) in store.groupsBreakingRules(in: candidate) {
      var kept = error
      kept.message += "; the group would keep its running values"
      plan.rejected.append(ControlProblem(key: nil, kept))
      held.formUnion(keys)
    }
    for box in store.declaredSettings where !held.contains(box.key) {
      let before = box.resolvedWithoutApplying(in: base)
      let after = box.resolvedWithoutApplying(in: candidate)
      // What the candidate itself changes: a value or a rejection that differs from the files' now.
      guard before.value != after.value || before.rejection != after.rejection else { continue }
      let running = box.currentValue()
      let isSecret = box.traits.contains(.secret)
      if let rejection = after.rejection, running.value != nil {
        var kept = rejection
        kept.message += "; the running value would be kept"
        plan.rejected.append(ControlProblem(key: box.key, kept))
        continue
      }
      guard after.value != running.value else { continue }
      let change = ControlDifference(
        key: box.key, running: shown(running.value, isSecret), runningOrigin: running.origin.description,
        other: shown(after.value, isSecret), otherOrigin: after.origin.description)
      if box.traits.contains(.restartRequired) {
        plan.pendingRestart.append(change)
      } else {
        plan.changes.append(change)
      }
    }
    plan.unknownKeys = store.schema.unknownKeys(in: candidate, resolvePath: store.stack.options.resolvePath)
      .filter { $0.error.path == target }.map { ControlProblem(key: nil, $0.error) }
    return ControlResponse(ok: true, plan: plan)
  }
}

/// What a store's control socket answers (`status`, `plan`, `set`, `unset`) and the overrides it keeps:
/// a client of the store, which reads what the store publishes and changes values only through the
/// store's runtime layer, whose every change goes through the store's reload loop. Made for each request,
/// on the socket's thread.
struct ControlAnswers {
  /// The store served.
  let store: SettingsStore
  /// The socket's overrides, and when each ends.
  let overrides: RuntimeOverrides

  /// Answers one request, on the control socket's thread.
  func answer(_ request: ControlRequest) -> ControlResponse {
    switch request.request {
    case "status": return ControlResponse(ok: true, status: status())
    case "plan": return plan(request)
    case "set": return setOverride(request)
    case "unset": return unsetOverride(request)
    default:
      return .failure("unknown request '\(request.request)'; expected status, plan, set or unset")
    }
  }

  private func setOverride(_ request: ControlRequest) -> ControlResponse {
    guard let key = request.key, let text = request.value, let seconds = request.seconds else {
      return .failure("set needs a key, a value and seconds")
    }
    guard seconds > 0, seconds <= 366 * 86400 else {
      return .failure("an override lasts more than 0 seconds and at most 366 days, not \(seconds)")
    }
    guard let (box, field) = declaredSetting(forOverrideOf: key) else {
      return .failure(unknownKeyMessage(key))
    }
    guard !text.utf8.contains(0) else {
      return .failure("refused: the value for \(key) holds a NUL character, which no file could hold")
    }
    guard !box.traits.contains(.restartRequired) else {
      // The running value of such a setting is the one it started with, and a restart ends every
      // override: the override could never apply.
      return .failure(
        "\(key) applies only at start, and an override ends with the process, so it could never apply; "
          + "change the file and restart")
    }
    do throws(StrataError) {
      try store.checkWritable(key)
      guard let value = try overrideValue(of: box, field: field, text: text) else {
        return .failure("\(key) cannot be overridden with nothing; use unset")
      }
      let replaced = store.runtimeValue(at: key)
      let isSecret = box.traits.contains(.secret)
      let override = RuntimeOverrides.Override(
        value: value, shown: isSecret ? redactedText : ValueText.plain(value),
        expiresAt: overrides.clock.seconds + seconds, replaced: replaced)
      try store.setRuntimeValue(value, forKey: key)
      overrides.record(key, override)
      return ControlResponse(ok: true, override: overrides.standing.first { $0.key == key })
    } catch {
      return .failure(error.description)
    }
  }

  private func unsetOverride(_ request: ControlRequest) -> ControlResponse {
    guard let key = request.key else { return .failure("unset needs a key") }
    // A rollback of the key (the service turned unhealthy) ends the same way.
    if store.endRollback(of: key) { return ControlResponse(ok: true) }
    guard let ended = overrides.remove(key) else {
      let standing = overrides.standing.map(\.key)
      return .failure(
        "no override of \(key) is set"
          + (standing.isEmpty ? "" : " (set: \(standing.joined(separator: ", ")))"))
    }
    restore(key, after: ended)
    return ControlResponse(ok: true)
  }

  /// Ends the overrides whose time is up (every one, with `all`: the socket stops serving), each with an
  /// event.
  func expire(all: Bool = false) {
    for (key, ended) in overrides.takeExpired(all: all) {
      restore(key, after: ended)
      store.emit(.overrideExpired(key: key))
    }
  }

  /// Puts back the runtime value an override replaced, unless the program wrote the key meanwhile.
  private func restore(_ key: String, after ended: RuntimeOverrides.Override) {
    store.replaceRuntimeValue(at: key, ifStill: ended.value, with: ended.replaced)
  }

  /// "unknown key 'x' (did you mean 'y'?)" against the declared keys.
  func unknownKeyMessage(_ key: String) -> String {
    let suggestion =
      Suggestions.closest(to: key, in: store.declaredKeys).map { " (did you mean '\($0)'?)" } ?? ""
    return "unknown key '\(InputLimits.shortened(key))'\(suggestion): no setting of the service declares it"
  }
}

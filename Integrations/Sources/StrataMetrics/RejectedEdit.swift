import Strata

extension StrataError {
  /// Whether a `failed` event tells of a live edit that a setting refused (it keeps its running value)
  /// rather than of a source that could not be read or parsed. `StoreEvent` has one case for both; the
  /// store marks a refused edit by ending its message so (see the LiveReload article), and the metrics
  /// tests drive a real store through both kinds to keep this true.
  var isRejectedEdit: Bool { message.hasSuffix("; the running value is kept") }
}

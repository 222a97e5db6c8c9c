import Strata
import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `config-dump --running APP` (or `--pid N`, `--socket PATH`): asks a running service through its
/// control socket, and prints the answer (``ControlText``), or the raw JSON with `--format json`.
struct RunningCommand {
  var arguments: Arguments
  var environment: [String: String]

  /// Asks and prints; returns the exit status.
  func run(output: (String) -> Void, errors: (String) -> Void) -> ExitStatus {
    if arguments.history { return history(output: output, errors: errors) }
    do throws(StrataError) {
      let path = try socketPath()
      let request = try self.request()
      let response = try ControlClient.send(request, to: path)
      if arguments.format == .json {
        output(json(response))
        return response.ok && (response.plan?.rejected.isEmpty ?? true)
          && (response.plan?.errors.isEmpty ?? true)
          ? .success : .configurationError
      }
      guard response.ok else {
        errors("config-dump: the service refused: \(response.error ?? "no reason given")\n")
        return .configurationError
      }
      if let status = response.status { output(ControlText.status(status)) }
      if let plan = response.plan {
        output(ControlText.plan(plan))
        return plan.rejected.isEmpty && plan.errors.isEmpty ? .success : .configurationError
      }
      if let override = response.override { output(ControlText.override(override)) }
      if let key = arguments.unset { output("\(key): override ended; the configured value applies again\n") }
      return .success
    } catch {
      errors("config-dump: \(error)\n")
      return .configurationError
    }
  }

  /// The socket the arguments name.
  func socketPath() throws(StrataError) -> String {
    if let socket = arguments.socket { return socket }
    if let pid = arguments.pid { return try ControlClient.socket(ofProcess: pid) }
    return try ControlClient.socket(ofApp: arguments.running ?? "", environment: environment)
  }

  private func request() throws(StrataError) -> ControlRequest {
    if let plan = arguments.plan {
      return ControlRequest(
        request: "plan", path: plan, target: arguments.planTarget, content: try candidate(plan))
    }
    if let set = arguments.set, let equals = set.firstIndex(of: "=") {
      return ControlRequest(
        request: "set", key: String(set[..<equals]), value: String(set[set.index(after: equals)...]),
        seconds: arguments.duration)
    }
    if let unset = arguments.unset { return ControlRequest(request: "unset", key: unset) }
    return ControlRequest(request: "status")
  }

  /// The candidate file's text, up to what one request carries.
  private func candidate(_ path: String) throws(StrataError) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw StrataError(.unreadable, "cannot open: \(String(cString: strerror(errno)))", path: path)
    }
    defer { Syscall.close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = Syscall.read(fd, &chunk, chunk.count)
      if count < 0 {
        throw StrataError(.unreadable, "cannot read: \(String(cString: strerror(errno)))", path: path)
      }
      if count == 0 { break }
      bytes += chunk[..<count]
      // The request also carries names and JSON escapes; the service says so if the whole is too long.
      if bytes.count > ControlProtocol.maxRequestBytes {
        throw StrataError(
          .fileTooLarge,
          "over \(ControlProtocol.maxRequestBytes) bytes, more than a plan request carries", path: path)
      }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw StrataError(.invalidUTF8, "a candidate file must be UTF-8 text", path: path)
    }
    return text
  }

  private func json(_ response: ControlResponse) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(response)) ?? Data(), as: UTF8.self) + "\n"
  }
}

import Foundation
import Logging
import ServiceLifecycle
import Strata
import Testing

@testable import StrataServiceLifecycle

/// `SettingsStoreService(serveControl: true)`: the store's control socket served by the service, ready
/// only once it accepts connections, and an error that ends the service when it cannot be made.
@Suite struct ServiceControlSocketTests {
  @Test func theServiceServesTheControlSocketAndIsReadyOnlyOnceItListens() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      try SvcFixtures.write("[greeting]\nname = world\n", to: dir + "/a.ini")
      chmod(dir, 0o700)
      let socket = dir + "/control.sock"
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/a.ini"])])
      let greeting = ServiceGreetingSettings(store: store)
      let listeningWhenReady = SvcFixtures.Flag()
      let ready = SvcFixtures.Flag()
      let service = SettingsStoreService(
        store: store, logger: ServiceLifecycleTests.quiet, serveControl: true, controlSocketPath: socket,
        onReady: {
          if FileManager.default.fileExists(atPath: socket) { listeningWhenReady.set() }
          ready.set()
        })
      let group = ServiceGroup(services: [service], logger: ServiceLifecycleTests.quiet)
      let ended = SvcFixtures.Flag()
      let running = Task {
        defer { ended.set() }
        try await group.run()
      }
      defer { running.cancel() }
      #expect(await SvcFixtures.waitUntil { ready.isSet })
      #expect(listeningWhenReady.isSet, "ready before the control socket was made")
      let answer = await ControlSocketClient.ask(socket, #"{"version":1,"request":"status"}"#)
      #expect(answer?.contains("\"generation\"") == true, "\(answer ?? "no answer")")
      #expect(answer?.contains("greeting.name") == true && answer?.contains("world") == true)
      #expect(greeting.name == "world")
      await group.triggerGracefulShutdown()
      #expect(await SvcFixtures.waitUntil { ended.isSet }, "the group still runs after a graceful shutdown")
      try await running.value
      #expect(!FileManager.default.fileExists(atPath: socket), "the socket was left behind")
    }
  }

  /// A socket directory others may write (where another user could take the socket's name) is refused:
  /// the service ends with the error, naming the directory, and so does the group.
  @Test func aSocketThatCannotBeMadeEndsTheServiceWithItsError() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      try SvcFixtures.write("[greeting]\nname = world\n", to: dir + "/a.ini")
      let open = dir + "/open"
      try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
      chmod(open, 0o777)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/a.ini"])])
      let ready = SvcFixtures.Flag()
      let service = SettingsStoreService(
        store: store, serveControl: true, controlSocketPath: open + "/control.sock", onReady: { ready.set() })
      let group = ServiceGroup(services: [service], logger: ServiceLifecycleTests.quiet)
      let failure: (any Error)?
      do {
        try await group.run()
        failure = nil
      } catch {
        failure = error
      }
      let shown = "\(failure.map { "\($0)" } ?? "none")"
      #expect(shown.contains(open) && shown.contains("777"), "\(shown)")
      #expect(!ready.isSet, "the service said it was ready without its socket")
    }
  }
}

/// One request to a control socket on a thread of its own (connect, send, read to the end), so that no
/// thread of the cooperative pool waits on the socket.
enum ControlSocketClient {
  static func ask(_ path: String, _ request: String) async -> String? {
    await withCheckedContinuation { continuation in
      let thread = Thread { continuation.resume(returning: askBlocking(path, request)) }
      thread.start()
    }
  }

  private static func askBlocking(_ path: String, _ request: String) -> String? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var timeout = timeval()
    timeout.tv_sec = 30
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8) + [0]
    guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { return nil }
    let line = Array((request + "\n").utf8)
    guard line.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == line.count else { return nil }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count > 0 {
        answer += buffer[0..<count]
        if answer.last == UInt8(ascii: "\n") { break }
      } else if count < 0 && errno == EINTR {
        continue
      } else {
        break
      }
    }
    return String(decoding: answer, as: UTF8.self)
  }
}

import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// Nobody can stand in for the service behind its control socket: the service refuses a directory
/// another user could replace its socket in, and the client refuses a socket served by anyone but the
/// service (the owner of the socket's directory), itself or root, before it sends anything.
@Suite(.linuxOnly("SO_PEERCRED; setpriv")) struct ControlSocketTrustTests {
  func served(in dir: String) throws -> ControlServer {
    let store = SettingsStore(layers: [])
    return try store.startControl(
      at: dir + "/control.sock", clock: ManualControlClock(), mode: 0o600, environment: [:])
  }

  @Test func theServiceRefusesADirectoryOthersMayWrite() throws {
    try withTemporaryDirectory { dir in
      #expect(chmod(dir, 0o777) == 0)
      let refused = #expect(throws: StrataError.self) { try served(in: dir) }
      #expect(
        refused?.message.contains("its group or others may write (mode 777)") == true,
        "\(String(describing: refused))")
      #expect(refused?.path == dir)
      #expect(!FileManager.default.fileExists(atPath: dir + "/control.sock"))
      #expect(chmod(dir, 0o775) == 0)
      #expect(throws: StrataError.self) { try served(in: dir) }
      // The sticky bit keeps others from moving a file they do not own: /tmp's 1777 is usable.
      let sticky = dir + "/sticky"
      #expect(mkdir(sticky, 0o755) == 0 && chmod(sticky, 0o1777) == 0)
      try served(in: sticky).stop()
      let usual = dir + "/usual"
      #expect(mkdir(usual, 0o755) == 0 && chmod(usual, 0o755) == 0)
      try served(in: usual).stop()
    }
  }

  @Test(.enabled(if: geteuid() == 0, "only root can give a directory to another user"))
  func theServiceRefusesADirectoryAnotherUserOwns() throws {
    try withTemporaryDirectory { dir in
      #expect(chmod(dir, 0o755) == 0 && chown(dir, 65534, 65534) == 0)
      let refused = #expect(throws: StrataError.self) { try served(in: dir) }
      #expect(refused?.message.contains("owned by uid 65534, not by this process's uid 0 or root") == true)
    }
  }

  /// Another user binds a socket where the client looks (here in a sticky directory root owns, as
  /// /tmp): the client connects, sees who serves it, and refuses before sending a byte. The same
  /// server in a directory that user owns is the service itself, and is talked to.
  @Test(
    .enabled(if: geteuid() == 0, "needs root to run a server as another user"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs setpriv"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
  func theClientRefusesASocketAnotherUserServes() async throws {
    try await withTemporaryDirectory { dir in
      #expect(chmod(dir, 0o755) == 0)
      let shared = dir + "/shared"
      let owned = dir + "/owned"
      #expect(mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
      #expect(mkdir(owned, 0o755) == 0 && chown(owned, 65534, 65534) == 0)
      for (directory, isImpostor) in [(shared, true), (owned, false)] {
        let path = directory + "/control.sock"
        // Answers one line to each connection, and says what it received.
        let script = """
          import socket, sys
          s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
          print("listening", flush=True)
          while True:
              c, _ = s.accept(); data = c.recv(65536)
              print("received", len(data), flush=True)
              c.sendall(b'{"ok": false}\\n'); c.close()
          """
        let impostor = try ChildProcess(
          "/usr/bin/setpriv",
          ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, path])
        #expect(await impostor.line(startingWith: "listening") != nil, "\(impostor.outputSoFar)")
        let failure = await onOwnThread { () -> StrataError? in
          do throws(StrataError) {
            _ = try ControlClient.send(ControlRequest(request: "status"), to: path, within: 30)
            return nil
          } catch {
            return error
          }
        }
        let message = failure?.message ?? ""
        if isImpostor {
          #expect(
            message.contains(
              "it is served by uid 65534, not by the service's uid 0 (the owner of \(directory)), this user's uid 0 or root"
            ),
            "\(message)")
          // Nothing was sent: the server received 0 bytes from each connection.
          impostor.send(SIGTERM)
          let (output, _) = await impostor.finish(within: 60)
          let received = output.split(separator: "\n").filter { $0.hasPrefix("received ") }
          #expect(received.allSatisfy { $0 == "received 0" }, "\(output)")
        } else {
          #expect(!message.contains("refusing"), "\(message)")
          #expect(await impostor.line(startingWith: "received") != nil, "\(impostor.outputSoFar)")
          impostor.send(SIGTERM)
          _ = await impostor.finish(within: 60)
        }
      }
    }
  }
}

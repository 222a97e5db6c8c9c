import Foundation
import Testing

/// The result of running the built `config-dump`.
struct DumpRun {
  var status: Int32
  var output: String
  var errors: String
}

/// The `config-dump` binary built beside the test bundle.
let configDumpPath: String = {
  let exe =
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  var dir = (exe as NSString).deletingLastPathComponent
  // The test binary can sit inside a .xctest bundle directory.
  while !dir.isEmpty && dir != "/" && !FileManager.default.fileExists(atPath: dir + "/config-dump") {
    dir = (dir as NSString).deletingLastPathComponent
  }
  return dir + "/config-dump"
}()

/// Runs `config-dump` with arguments and an environment (nothing inherited but PATH), in `directory`
/// (waiting on a thread of its own, see ``Spawn/run(_:_:environment:rawEnvironment:directory:within:)``).
func runConfigDump(
  _ arguments: [String], environment: [String: String] = [:], in directory: String = repositoryRoot
)
  async throws -> DumpRun
{
  #expect(
    FileManager.default.isExecutableFile(atPath: configDumpPath), "config-dump not built at \(configDumpPath)"
  )
  let result = try await Spawn.run(
    configDumpPath, arguments, environment: environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a },
    directory: directory)
  return DumpRun(status: result.status, output: result.output, errors: result.errors)
}

import Foundation

/// Starts the `hot-reload-server` sample built beside the test bundle over the files under `root`, in
/// `dir`, its control socket in `dir` (`RUNTIME_DIRECTORY`; never the machine's `/run/hotreload`), with
/// `extra` in its environment besides `PATH`. The process is killed and reaped when released.
func startHotReloadServer(root: String, in dir: String, environment extra: [String: String] = [:]) throws
  -> ChildProcess
{
  try ChildProcess(
    (configDumpPath as NSString).deletingLastPathComponent + "/hot-reload-server", ["--root", root],
    environment: Spawn.defaultEnvironment.merging(["RUNTIME_DIRECTORY": dir]) { $1 }.merging(extra) { $1 },
    in: dir)
}

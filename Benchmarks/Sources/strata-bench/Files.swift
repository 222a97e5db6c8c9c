import Glibc

/// Prints to standard error (progress and problems; the table goes to standard output).
func printError(_ text: String) {
  let bytes = Array((text + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// A new empty directory under $TMPDIR (or /tmp), removed by ``removeTree(_:)``.
func makeTemporaryDirectory(_ label: String) -> String {
  let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  var template = Array("\(base)/strata-bench-\(label)-XXXXXX".utf8CString)
  guard let path = mkdtemp(&template) else {
    fatalError("mkdtemp failed: \(String(cString: strerror(errno)))")
  }
  return String(cString: path)
}

/// Removes a directory tree made by the benchmark.
func removeTree(_ path: String) {
  precondition(path.contains("/strata-bench-"), "refusing to remove \(path)")
  _ = spawnAndWait("/bin/rm", ["-rf", path])
}

/// Writes `bytes` to `path` (created or truncated).
func writeFile(_ path: String, _ bytes: [UInt8]) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  precondition(fd >= 0, "cannot create \(path): \(String(cString: strerror(errno)))")
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
    precondition(written > 0 || errno == EINTR, "cannot write \(path)")
    if written > 0 { offset += written }
  }
  close(fd)
}

/// Writes `text` to `path`.
func writeFile(_ path: String, _ text: String) { writeFile(path, Array(text.utf8)) }

/// Replaces `path` the way editors and deployment tools do: writes `path.tmp`, then renames it over
/// `path`. Returns the instant just before rename(), where reload latency starts.
func replaceFile(_ path: String, _ text: String) -> ContinuousClock.Instant {
  let temporary = path + ".tmp"
  writeFile(temporary, text)
  let start = ContinuousClock.now
  precondition(rename(temporary, path) == 0, "rename failed: \(String(cString: strerror(errno)))")
  return start
}

/// The size of a file in bytes.
func fileSize(_ path: String) -> Int {
  var info = stat()
  return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// The repository root (the directory holding Benchmarks/), found from this source file's path.
func repositoryRoot() -> String {
  var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
  components.removeLast(4)  // Benchmarks/Sources/strata-bench/Files.swift
  return components.joined(separator: "/")
}

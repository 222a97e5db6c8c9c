import Glibc
import MallocCounter

/// Heap allocation counting through the MallocCounter target (which replaces malloc and friends).
enum Allocations {
  /// The allocations made while `body` runs, and the change in live heap bytes.
  static func count(_ body: () -> Void) -> (allocations: UInt64, liveBytes: Int64) {
    mc_reset()
    mc_set_enabled(true)
    body()
    mc_set_enabled(false)
    return (mc_allocations(), mc_live_bytes())
  }

  /// Checks the counter against known allocations: `n` heap arrays must show `n` allocations, and a
  /// loop of plain arithmetic none (after a warm-up call). Returns a line for the notes, or fails the run.
  static func sanityCheck() -> String {
    let arrays = 1_000
    allocateArrays(10)  // warm-up: the first call instantiates runtime metadata (which allocates)
    let counted = count { allocateArrays(arrays) }.allocations
    let none = count { blackHole(arithmetic(100_000)) }.allocations
    guard counted == UInt64(arrays), none == 0 else {
      fatalError(
        "malloc counter check failed: \(arrays) arrays → \(counted) allocations; arithmetic → \(none)")
    }
    return "malloc counter check: \(format(Double(arrays), decimals: 0)) heap arrays counted as "
      + "\(format(Double(counted), decimals: 0)) allocations, "
      + "100,000 additions as \(none)"
  }

  @inline(never)
  private static func allocateArrays(_ n: Int) {
    for index in 0..<n {
      blackHole([Int](repeating: index, count: 16))
    }
  }

  @inline(never)
  private static func arithmetic(_ n: Int) -> Int {
    var sum = 0
    for index in 0..<n { sum &+= index &* 3 }
    return sum
  }
}

/// The resident set size of this process, in bytes (from /proc/self/statm).
func residentBytes() -> Int {
  let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { return 0 }
  defer { close(fd) }
  var buffer = [UInt8](repeating: 0, count: 256)
  let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
  guard count > 0 else { return 0 }
  // "size resident shared text lib data dt", in pages.
  let fields = buffer[0..<count].split(separator: UInt8(ascii: " "))
  guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
  return pages * sysconf(Int32(_SC_PAGESIZE))
}

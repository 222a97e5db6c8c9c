import StrataPlatform

/// Opens five descriptors, closes every descriptor from the third of them up (with
/// `DescriptorRange.closeAll(from:)`, or its fallback that closes them one by one), and prints which of
/// the five are still open: `open=0,1`.
func runCloseFrom(fallback: Bool) {
  let fds = (0..<5).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
  guard fds.allSatisfy({ $0 >= 0 }) else {
    say("cannot open /dev/null")
    exit(1)
  }
  if fallback {
    DescriptorRange.closeEachBelowLimit(from: fds[2])
  } else {
    DescriptorRange.closeAll(from: fds[2])
  }
  let stillOpen = fds.indices.filter { fcntl(fds[$0], F_GETFD) != -1 }
  say("open=" + stillOpen.map(String.init).joined(separator: ","))
}

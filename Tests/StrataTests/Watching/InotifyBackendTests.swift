import StrataPlatform
import Testing

@testable import Strata

/// How the inotify backend reads the kernel's records in the watcher's terms (``FileEvent``).
@Suite struct InotifyBackendTests {
  #if os(Linux) && Inotify
    func kind(_ mask: Int32, name: String = "a.ini") -> FileEvent.Kind {
      FileEvent(InotifyEvent(watch: 3, mask: InotifyMask(rawValue: UInt32(mask)), name: name)).kind
    }
  #endif

  @Test(.needsInotify) func eachRecordMapsToWhatItMeansForAWatcher() {
    #if os(Linux) && Inotify
      #expect(kind(IN_CLOSE_WRITE) == .completed)
      #expect(kind(IN_MOVED_TO) == .completed)
      #expect(kind(IN_MOVED_FROM) == .vanished)
      #expect(kind(IN_DELETE) == .vanished)
      #expect(kind(IN_CREATE) == .created)
      // A write not yet closed, or an attribute: never a reason to read (WATCHING.md); a write marks
      // the file as being written until it is closed.
      #expect(kind(IN_MODIFY) == [.touched, .written])
      #expect(kind(IN_ATTRIB) == .touched)
      #expect(kind(IN_DELETE_SELF, name: "") == .directoryGone)
      #expect(kind(IN_MOVE_SELF, name: "") == .directoryGone)
      #expect(kind(IN_IGNORED, name: "") == .watchEnded)
      #expect(kind(IN_UNMOUNT, name: "") == .watchEnded)
      #expect(kind(IN_Q_OVERFLOW, name: "") == .overflow)
      // Several flags in one record keep each meaning; the directory flag adds none.
      #expect(kind(IN_CREATE | IN_ISDIR) == .created)
      #expect(kind(IN_DELETE_SELF | IN_IGNORED, name: "") == [.directoryGone, .watchEnded])
      let event = FileEvent(InotifyEvent(watch: 7, mask: .closeWrite, name: "b.ini"))
      #expect(event == FileEvent(watch: 7, kind: .completed, name: "b.ini"))
    #endif
  }
}

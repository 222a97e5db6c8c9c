import Testing

@testable import Strata

/// What waits for a full notification socket: sanitised datagrams, merged statuses, a bound.
@Suite struct NotifyOutboxTests {
  func message(_ fields: String...) -> NotifyMessage { NotifyMessage(fields: fields) }

  func texts(_ queue: NotifyQueue) -> [String] {
    queue.messages.map { String(decoding: $0.bytes, as: UTF8.self) }
  }

  @Test func fieldsAreSanitisedOnTheirBytesAndMessagesClassified() {
    #expect(message("STATUS=a\r\nMAINPID=1").bytes == Array("STATUS=a  MAINPID=1".utf8))
    #expect(message("STATUS=é\u{0}x", "X=\r").bytes == Array("STATUS=é x\nX= ".utf8))
    #expect(message("STATUS=a").kind == .status)
    #expect(message("STATUS=a", "STATUS=b").kind == .status)
    #expect(message("READY=1", "STATUS=a").kind == .state)
    #expect(message("RELOADING=1", "MONOTONIC_USEC=1").kind == .state)
    #expect(message("STOPPING=1").kind == .state)
    #expect(message("MAINPID=7").kind == .other)
    #expect(message("STATUS=a", "MAINPID=7").kind == .other)
    // A status that says READY= is a status, once sanitised into its field.
    #expect(message("STATUS=x\nREADY=1").kind == .status)
  }

  @Test func consecutiveStatusesMergeIntoTheNewestButNeverAcrossAnotherMessage() {
    var queue = NotifyQueue()
    for index in 1...100 { queue.append(message("STATUS=\(index)")) }
    queue.append(message("READY=1"))
    queue.append(message("STATUS=after"))
    queue.append(message("STATUS=newest"))
    queue.append(message("MAINPID=7"))
    queue.append(message("STATUS=last"))
    #expect(texts(queue) == ["STATUS=100", "READY=1", "STATUS=newest", "MAINPID=7", "STATUS=last"])
    #expect(queue.dropped == 0)
  }

  @Test func aFullQueueDropsOldStatusesThenOtherMessagesThenTheOldestStates() {
    var queue = NotifyQueue()
    queue.append(message("STATUS=old"))
    queue.append(message("MAINPID=1"))
    for index in 0..<(NotifyQueue.capacity - 2) { queue.append(message("RELOADING=\(index)")) }
    #expect(queue.messages.count == NotifyQueue.capacity)
    queue.append(message("READY=1"))  // the status goes first
    #expect(texts(queue).first == "MAINPID=1")
    queue.append(message("READY=2"))  // then the other message
    #expect(texts(queue).first == "RELOADING=0")
    queue.append(message("READY=3"))  // then the oldest state
    #expect(texts(queue).first == "RELOADING=1")
    #expect(texts(queue).suffix(3) == ["READY=1", "READY=2", "READY=3"])
    #expect(queue.messages.count == NotifyQueue.capacity)
    #expect(queue.dropped == 3)
  }
}

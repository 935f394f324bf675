import NotifyProtocol
import Testing

@Suite("VarlinkFramer")
struct VarlinkFramerTests {
  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test func splitsOnNul_intoWholeMessages() {
    var framer = VarlinkFramer()
    let output = framer.append(Self.bytes("{\"a\":1}\0{\"b\":2}\0"))
    #expect(output.messages == [Self.bytes("{\"a\":1}"), Self.bytes("{\"b\":2}")])
    #expect(!output.overflowed)
    #expect(framer.pendingCount == 0)
  }

  @Test func keepsAPartialMessage_untilItsNulArrives() {
    var framer = VarlinkFramer()
    #expect(framer.append(Self.bytes("{\"me")).messages.isEmpty)
    #expect(framer.pendingCount == 4)
    #expect(framer.append(Self.bytes("thod\":")).messages.isEmpty)
    let output = framer.append(Self.bytes("\"x\"}\0{\"nex"))
    #expect(output.messages == [Self.bytes("{\"method\":\"x\"}")])
    #expect(framer.pendingCount == 5)
    #expect(framer.append(Self.bytes("t\":1}\0")).messages == [Self.bytes("{\"next\":1}")])
    #expect(framer.pendingCount == 0)
  }

  @Test func byteByByte_yieldsTheSameMessages() {
    var framer = VarlinkFramer()
    var messages: [[UInt8]] = []
    for byte in Self.bytes("{}\0[1,2]\0\"s\"\0") {
      messages += framer.append([byte]).messages
    }
    #expect(messages == [Self.bytes("{}"), Self.bytes("[1,2]"), Self.bytes("\"s\"")])
  }

  @Test func emptyMessagesBetweenNuls_areReportedEmpty() {
    var framer = VarlinkFramer()
    #expect(framer.append([0, 0]).messages == [[], []])
  }

  @Test func overflow_pastTheMaximumSize_isReported() {
    var framer = VarlinkFramer(maximumMessageSize: 8)
    #expect(!framer.append(Self.bytes("12345678")).overflowed)
    #expect(framer.append(Self.bytes("9")).overflowed)
  }

  @Test func completeMessagesLargerThanTheChunk_doNotOverflow() {
    var framer = VarlinkFramer(maximumMessageSize: 8)
    let output = framer.append(Self.bytes("1234567\0abcdefg\0xy"))
    #expect(!output.overflowed)
    #expect(output.messages.count == 2)
    #expect(framer.pendingCount == 2)
  }

  @Test func defaultMaximum_isOneMebibyte() {
    #expect(VarlinkFramer().maximumMessageSize == 1 << 20)
  }
}

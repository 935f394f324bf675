import Testing

@testable import NotifySpeech

@Suite("speech-dispatcher's client")
struct SpeechDispatcherTests {
  @Test func aMessage_isItsLines_aLeadingDotDoubled_andEndsWithALoneDot() {
    #expect(SpeechDispatcher.message("Backup done. 312 files") == "Backup done. 312 files\r\n.\r\n")
    #expect(SpeechDispatcher.message(".hidden\nline\r\n.") == "..hidden\r\nline\r\n..\r\n.\r\n")
  }

  @Test func theSocket_isTheConfigsThenSpeechdAddressThenTheRuntimeDirectorys() {
    let environment = ["XDG_RUNTIME_DIR": "/run/user/1000", "SPEECHD_ADDRESS": "unix_socket:/tmp/sd.sock"]
    #expect(SpeechDispatcher.socketPath(configured: "/x.sock", environment: environment) == "/x.sock")
    #expect(SpeechDispatcher.socketPath(configured: "", environment: environment) == "/tmp/sd.sock")
    #expect(
      SpeechDispatcher.socketPath(configured: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        == "/run/user/1000/speech-dispatcher/speechd.sock")
    // A TCP address is not one notifyd speaks to; nothing at all, no path.
    #expect(
      SpeechDispatcher.socketPath(configured: nil, environment: ["SPEECHD_ADDRESS": "inet_socket:h:6560"])
        == nil)
    #expect(SpeechDispatcher.socketPath(configured: nil, environment: [:]) == nil)
  }
}

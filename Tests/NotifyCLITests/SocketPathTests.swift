import NotifyPaths
import NotifyProtocol
import Testing

@Suite("Socket path resolution")
struct SocketPathTests {
  @Test(
    arguments: [
      ("/opt/a.sock", ["NOTIFYD_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/7"], nil, "/opt/a.sock"),
      (nil, ["NOTIFYD_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/7"], "/conf.sock", "/env.sock"),
      (nil, ["XDG_RUNTIME_DIR": "/run/user/7"], "/conf.sock", "/conf.sock"),
      (nil, ["XDG_RUNTIME_DIR": "/run/user/7", "HOME": "/home/u"], "~/n.sock", "/home/u/n.sock"),
      ("", ["XDG_RUNTIME_DIR": "/run/user/7"], nil, "/run/user/7/notifyd.sock"),
      (nil, ["XDG_RUNTIME_DIR": "/run/user/7"], "", "/run/user/7/notifyd.sock"),
      (nil, ["XDG_RUNTIME_DIR": "/run/user/7/"], nil, "/run/user/7/notifyd.sock"),
      (nil, ["NOTIFYD_SOCKET": "", "XDG_RUNTIME_DIR": ""], nil, "/run/user/1000/notifyd.sock"),
      (nil, [:], nil, "/run/user/1000/notifyd.sock"),
    ] as [(String?, [String: String], String?, String)])
  func resolve_prefersOptionThenEnvironmentThenConfigThenRuntimeDirThenUid(
    option: String?, environment: [String: String], configured: String?, expected: String
  ) {
    #expect(
      SocketPath.resolve(option: option, environment: { environment[$0] }, configured: configured, uid: 1000)
        == expected)
  }

  @Test func theConfigsSocketPath_isTheLastInItsSection_andOnlyThere() {
    let text = """
      # [Socket]
      Path=/not/this
      [Queue]
      Path=/nor/this
      [Socket]
      ; a comment
        Path = /first.sock
      Path=/last.sock
      [Store]
      Path=/store.db
      """
    #expect(ConfigLocation.socketPath(inConfig: text) == "/last.sock")
    #expect(ConfigLocation.socketPath(inConfig: "[Socket]\nPath=\n") == nil)
    #expect(ConfigLocation.socketPath(inConfig: "") == nil)
  }

  @Test func theConfigsSectionValues_areTheLastOfEachKey_andOfThatSectionOnly() {
    let text = """
      [Relay]
      User=first
      [Socket]
      User=not this
      [Relay]
        User = last
      TokenFile=
      Credentials=~/me.creds
      """
    #expect(
      ConfigLocation.values(inSection: "Relay", ofConfig: text) == [
        "User": "last", "TokenFile": "", "Credentials": "~/me.creds",
      ])
    #expect(ConfigLocation.values(inSection: "Queue", ofConfig: text).isEmpty)
  }
}

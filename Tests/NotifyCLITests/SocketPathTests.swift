import NotifyProtocol
import Testing

@Suite("Socket path resolution")
struct SocketPathTests {
  @Test(
    arguments: [
      ("/opt/a.sock", ["NOTIFYD_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/7"], "/opt/a.sock"),
      (nil, ["NOTIFYD_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/7"], "/env.sock"),
      (nil, ["XDG_RUNTIME_DIR": "/run/user/7"], "/run/user/7/notifyd.sock"),
      (nil, ["XDG_RUNTIME_DIR": "/run/user/7/"], "/run/user/7/notifyd.sock"),
      (nil, ["NOTIFYD_SOCKET": "", "XDG_RUNTIME_DIR": ""], "/run/user/1000/notifyd.sock"),
      (nil, [:], "/run/user/1000/notifyd.sock"),
    ] as [(String?, [String: String], String)])
  func resolve_prefersOptionThenEnvironmentThenRuntimeDirThenUid(
    option: String?, environment: [String: String], expected: String
  ) {
    #expect(SocketPath.resolve(option: option, environment: { environment[$0] }, uid: 1000) == expected)
  }
}

import Testing

@testable import NotifyDisplay

/// Where the session draws, as an environment, the user's service manager and an Xauthority file say.
@Suite("SessionDisplay")
struct SessionDisplayTests {
  @Test("the manager's assignments: the display variables only, an empty one unset, the last one winning")
  func assignments() {
    let display = SessionDisplay(assignments: [
      "PATH=/usr/bin", "WAYLAND_DISPLAY=wayland-0", "DISPLAY=", "XAUTHORITY=/run/user/1000/gdm/Xauthority",
      "WAYLAND_DISPLAY=wayland-1", "NOT AN ASSIGNMENT",
    ])
    #expect(
      display == SessionDisplay(wayland: "wayland-1", x11: nil, xauthority: "/run/user/1000/gdm/Xauthority"))
    #expect(display.description == "WAYLAND_DISPLAY=wayland-1 XAUTHORITY=/run/user/1000/gdm/Xauthority")
    #expect(SessionDisplay(assignments: []).description == "no display")
  }

  @Test("applied to an environment: its display variables replaced, unset ones removed")
  func applied() {
    let environment = ["PATH": "/bin", "DISPLAY": ":9", "WAYLAND_DISPLAY": "old", "XAUTHORITY": "/x"]
    let applied = SessionDisplay(wayland: "wayland-1").applied(to: environment)
    #expect(applied == ["PATH": "/bin", "WAYLAND_DISPLAY": "wayland-1"])
  }

  @Test("the sockets a display names: in the runtime directory or a path; X11's by display number")
  func sockets() {
    #expect(
      SessionDisplay(wayland: "wayland-1").waylandSocket(runtimeDirectory: "/run/user/7")
        == "/run/user/7/wayland-1")
    #expect(SessionDisplay(wayland: "/tmp/w").waylandSocket(runtimeDirectory: "/run/user/7") == "/tmp/w")
    #expect(SessionDisplay(wayland: "wayland-1").waylandSocket(runtimeDirectory: nil) == nil)
    #expect(SessionDisplay(x11: ":0").x11Socket == "/tmp/.X11-unix/X0")
    #expect(SessionDisplay(x11: ":12.1").x11Socket == "/tmp/.X11-unix/X12")
    #expect(SessionDisplay(x11: "unix:3").x11Socket == "/tmp/.X11-unix/X3")
    #expect(SessionDisplay(x11: "remote:0").x11Socket == nil)
    #expect(SessionDisplay(x11: ":x").x11Socket == nil)
    #expect(SessionDisplay.x11DisplayNumber(":1.x") == nil)
  }

  @Test("followed: the manager's value once it has had one; the process's own until then")
  func followed() {
    var session = FollowedSession(started: SessionDisplay(x11: ":5", xauthority: "/home/a/.Xauthority"))
    // A manager that never heard of DISPLAY does not undo the unit's own.
    var changed = session.managerSays(["PATH=/bin"])
    #expect(!changed)
    #expect(session.current == SessionDisplay(x11: ":5", xauthority: "/home/a/.Xauthority"))
    changed = session.managerSays(["WAYLAND_DISPLAY=wayland-1"])
    #expect(changed)
    #expect(
      session.current == SessionDisplay(wayland: "wayland-1", x11: ":5", xauthority: "/home/a/.Xauthority"))
    changed = session.managerSays(["WAYLAND_DISPLAY=wayland-1", "DISPLAY=:0"])
    #expect(changed)
    #expect(session.current.x11 == ":0")
    // Unset by the session once it had exported it: unset here too.
    changed = session.managerSays(["PATH=/bin"])
    #expect(changed)
    #expect(session.current == SessionDisplay(xauthority: "/home/a/.Xauthority"))
    changed = session.managerSays([])
    #expect(!changed)
  }
}

/// The cookie for a display, from Xauthority's entries.
@Suite("XAuthority")
struct XAuthorityTests {
  /// An entry as `xauth` writes it: family, then four length-prefixed fields.
  private func entry(
    family: UInt16, address: String, number: String, name: String = "MIT-MAGIC-COOKIE-1", data: [UInt8]
  )
    -> [UInt8]
  {
    func field(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
    return [UInt8(family >> 8), UInt8(family & 0xFF)] + field(Array(address.utf8)) + field(Array(number.utf8))
      + field(Array(name.utf8)) + field(data)
  }

  @Test("the entry of this host and display number; a wild one; none for another host or number")
  func choosing() {
    let file =
      entry(family: 256, address: "other", number: "0", data: [1])
      + entry(family: 256, address: "box", number: "1", data: [2])
      + entry(family: 256, address: "box", number: "0", data: [3, 4])
      + entry(family: 65535, address: "", number: "", data: [5])
    #expect(
      XAuthority.cookie(in: file, display: 0, host: "box")
        == .init(name: Array("MIT-MAGIC-COOKIE-1".utf8), data: [3, 4]))
    #expect(XAuthority.cookie(in: file, display: 1, host: "box")?.data == [2])
    #expect(XAuthority.cookie(in: file, display: 7, host: "elsewhere")?.data == [5])
    #expect(XAuthority.cookie(in: Array(file.prefix(20)), display: 0, host: "box") == nil)
    #expect(XAuthority.cookie(in: [], display: 0, host: "box") == nil)
    // Only a cookie xcb sends as it is: an XDM-AUTHORIZATION-1 entry is passed over.
    let xdm = entry(family: 256, address: "box", number: "2", name: "XDM-AUTHORIZATION-1", data: [9])
    #expect(
      XAuthority.cookie(
        in: xdm + entry(family: 256, address: "box", number: "2", data: [8]), display: 2, host: "box")?.data
        == [8])
    #expect(XAuthority.cookie(inFileAt: "/nonexistent/xauthority", display: 0, host: "box") == nil)
  }
}

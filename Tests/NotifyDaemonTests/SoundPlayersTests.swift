import Foundation
import NotifyProtocol
import Testing

@testable import NotifyDaemon

@Suite("Which program plays a notice's sound")
struct SoundPlayersTests {
  /// A PATH with stand-ins for the players named, and a data directory with a sound theme.
  func machine(players: [String], sounds: [String]) throws -> (environment: [String: String], root: String) {
    let root = NSTemporaryDirectory() + "notifyd-sounds-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: "\(root)/bin", withIntermediateDirectories: true)
    for player in players {
      FileManager.default.createFile(
        atPath: "\(root)/bin/\(player)", contents: Data("#!/bin/sh\n".utf8),
        attributes: [.posixPermissions: 0o755])
    }
    try FileManager.default.createDirectory(
      atPath: "\(root)/share/sounds/freedesktop/stereo", withIntermediateDirectories: true)
    for sound in sounds {
      FileManager.default.createFile(
        atPath: "\(root)/share/sounds/freedesktop/stereo/\(sound)", contents: Data())
    }
    return (["PATH": "\(root)/bin", "XDG_DATA_DIRS": "\(root)/share", "HOME": "/nonexistent"], root)
  }

  func notice(_ hints: Hints?) -> Notice { Notice(id: 1, kind: .notice, title: "t", hints: hints) }

  @Test func withADisplay_canberraPlaysFilesAndNames() throws {
    var (environment, root) = try machine(players: ["canberra-gtk-play", "paplay"], sounds: [])
    defer { try? FileManager.default.removeItem(atPath: root) }
    environment["WAYLAND_DISPLAY"] = "wayland-1"
    let players = SoundPlayers(environment: environment)
    let canberra = "\(root)/bin/canberra-gtk-play"
    #expect(
      players.command(for: notice(Hints(soundFile: "/a.oga")), default: nil)
        == [canberra, "--file=/a.oga", "--description=notifyd"])
    #expect(
      players.command(for: notice(Hints(soundName: "bell")), default: nil)
        == [canberra, "--id=bell", "--description=notifyd"])
    #expect(
      players.command(for: notice(nil), default: "message-new-instant")
        == [canberra, "--id=message-new-instant", "--description=notifyd"])
    #expect(players.command(for: notice(Hints(soundName: "bell", silent: true)), default: "x") == nil)
    #expect(players.command(for: notice(nil), default: nil) == nil)
  }

  @Test func withoutADisplay_paplayPlaysFiles_andNamesFromTheFreedesktopTheme() throws {
    let (environment, root) = try machine(
      players: ["canberra-gtk-play", "paplay"], sounds: ["bell.oga", "x.wav"])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let players = SoundPlayers(environment: environment)
    let paplay = "\(root)/bin/paplay"
    #expect(players.command(for: notice(Hints(soundFile: "/a.oga")), default: nil) == [paplay, "/a.oga"])
    #expect(
      players.command(for: notice(Hints(soundName: "bell")), default: nil)
        == [paplay, "\(root)/share/sounds/freedesktop/stereo/bell.oga"])
    #expect(
      players.command(for: notice(nil), default: "x") == [
        paplay, "\(root)/share/sounds/freedesktop/stereo/x.wav",
      ])
    for name in ["no-such-sound", "../stereo/bell", ""] {
      #expect(players.command(for: notice(Hints(soundName: name)), default: nil) == nil, "\(name)")
    }
  }

  @Test func noPlayerAtAll_playsNothing() throws {
    let (environment, root) = try machine(players: [], sounds: ["bell.oga"])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let players = SoundPlayers(environment: environment)
    #expect(players.command(for: notice(Hints(soundFile: "/a.oga")), default: nil) == nil)
    #expect(players.command(for: notice(Hints(soundName: "bell")), default: nil) == nil)
  }
}

import NotifyProtocol
import Testing

@testable import NotifyCLI

/// `notifyctl menu`'s picker: which one, what it is given, what its answer names.
@Suite("ActionPicker")
struct ActionPickerTests {
  private static let actions = [
    Action(key: "default", label: "Open"), Action(key: "archive", label: "Archive"),
    Action(key: "spam", label: "Mark\nas spam"), Action(key: "bare", label: ""),
  ]

  @Test func theFirstPickerFound_isForTheDisplayInUse() {
    let installed: Set<String> = ["/usr/bin/wofi", "/usr/bin/rofi", "/usr/bin/dmenu"]
    func picker(_ variables: [String: String]) -> String? {
      ActionPicker.firstFound(
        environment: { variables.merging(["PATH": "/usr/local/bin:/usr/bin"]) { $1 }[$0] },
        isExecutable: { installed.contains($0) })?.command
    }
    #expect(picker(["WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"]) == "wofi --dmenu")
    #expect(picker(["DISPLAY": ":0"]) == "rofi -dmenu")
    #expect(picker([:]) == nil)
  }

  @Test func eachActionIsOneLine_andTheAnswerNamesItsKey() {
    #expect(ActionPicker.lines(for: Self.actions) == ["Open", "Archive", "Mark as spam", "bare"])
    #expect(ActionPicker.chosenKey("Mark as spam", of: Self.actions) == "spam")
    #expect(ActionPicker.chosenKey("archive", of: Self.actions) == "archive")  // typed as a key
    #expect(ActionPicker.chosenKey("Nothing like it", of: Self.actions) == nil)
    #expect(ActionPicker.chosenKey("", of: Self.actions) == nil)
  }

  @Test func aPicker_isGivenTheLines_andAnswersTheLineItPrints() throws {
    // sed as a picker that always chooses the second line.
    #expect(try ActionPicker(command: "sed -n 2p").choose(from: ["One", "Two", "Three"]) == "Two")
    // One that gives up (as a picker whose window is closed): nothing chosen.
    #expect(try ActionPicker(command: "cat >/dev/null; exit 1").choose(from: ["One"]) == nil)
    #expect(try ActionPicker(command: "true").choose(from: ["One"]) == nil)
    // One that prints far more than a label: its first line, the rest not kept.
    let flood = "yes Two | head -c 1000000"
    #expect(try ActionPicker(command: flood).choose(from: ["One"]) == "Two")
  }
}

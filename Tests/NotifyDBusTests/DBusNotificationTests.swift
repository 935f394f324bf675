import Foundation
import NotifyCore
import NotifyDisplay
import NotifyIcons
import NotifyProtocol
import NotifySupport
import Testing

@testable import NotifyDBus

@Suite("DBusNotification: Notify arguments to and from notices")
struct DBusNotificationTests {
  @Test(arguments: [(UInt8(0), Urgency.low), (1, .normal), (2, .critical)])
  func urgencyHint_mapsToUrgency(byte: UInt8, urgency: Urgency) {
    let call = DBusNotification(appName: "a", summary: "s", hints: ["urgency": .byte(byte)])
    #expect(call.urgency == urgency)
  }

  @Test func urgencyHint_outOfRangeOrMissing_isNil() {
    #expect(DBusNotification(appName: "a", summary: "s", hints: ["urgency": .byte(7)]).urgency == nil)
    #expect(DBusNotification(appName: "a", summary: "s").urgency == nil)
  }

  static let expiries: [(Int32, Double?)] = [(-1, nil), (0, 0), (1500, 1.5), (Int32.max, 86_400)]

  @Test(arguments: expiries)
  func expireTimeout_mapsToHold(expire: Int32, hold: Double?) {
    #expect(DBusNotification(appName: "a", summary: "s", expireTimeout: expire).hold == hold)
  }

  @Test func valueHint_ofAnyIntegerWidth_isClampedToAPercentage() {
    #expect(DBusNotification(appName: "a", summary: "s", hints: ["value": .int32(50)]).value == 50)
    #expect(DBusNotification(appName: "a", summary: "s", hints: ["value": .integer(250)]).value == 100)
    #expect(DBusNotification(appName: "a", summary: "s", hints: ["value": .int32(-3)]).value == 0)
    #expect(DBusNotification(appName: "a", summary: "s", hints: ["value": .string("50")]).value == nil)
  }

  @Test func icon_followsTheSpecsOrder_andTakesOnlyFiles() throws {
    let log = Logger(level: .error, sink: DiscardingSink())
    func icon(_ appIcon: String = "", _ hints: [String: DBusHint] = [:], cache: IconCache? = nil) throws
      -> String?
    {
      try DBusNotification(appName: "a", appIcon: appIcon, summary: "s", hints: hints)
        .icon(storingPixelsIn: cache, log: log)
    }
    #expect(try icon() == nil)
    #expect(try icon("dialog-information") == nil)  // a theme's name, and no theme to look in
    #expect(try icon("/usr/share/pixmaps/a.png") == "/usr/share/pixmaps/a.png")
    #expect(try icon("file:///home/ann/my%20icon.png") == "/home/ann/my icon.png")
    #expect(try icon("/a.png", ["image-path": .string("file:///b.png")]) == "/b.png")
    #expect(try icon("/a.png", ["image_path": .string("/c.png")]) == "/c.png")
    #expect(try icon("/a.png", ["image-path": .string("name-only")]) == "/a.png")

    let directory = NSTemporaryDirectory() + "notifyd-dbus-icons-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let cache = IconCache(directory: directory)
    let pixels = IconPixels(
      width: 2, height: 2, rowStride: 8, hasAlpha: true, bitsPerSample: 8, channels: 4,
      data: Array(repeating: 0x80, count: 16))
    for name in ["image-data", "image_data", "icon_data"] {
      let kept = try #require(
        try icon("/a.png", [name: .image(pixels), "image-path": .string("/b.png")], cache: cache))
      #expect(kept.hasPrefix(directory + "/"))
    }
    var short = pixels
    short.data = [1, 2, 3]
    #expect(
      throws: QueueError.invalidArgument(
        field: "hints: image-data", reason: "data holds 3 bytes; 2×2 needs 16")
    ) {
      try icon("/a.png", ["image-data": .image(short)], cache: cache)
    }
    // A cache that cannot be written: the notice goes on with the next icon there is.
    let unwritable = IconCache(directory: "/proc/notifyd-icons")
    #expect(try icon("/a.png", ["image-data": .image(pixels)], cache: unwritable) == "/a.png")
  }

  @Test func stackTag_prefersDunstsThenCanonicals() {
    let both = DBusNotification(
      appName: "a", summary: "s",
      hints: ["x-dunst-stack-tag": .string("dunst"), "x-canonical-private-synchronous": .string("canonical")])
    #expect(both.stackTag == "dunst")
    let canonical = DBusNotification(
      appName: "a", summary: "s", hints: ["x-canonical-private-synchronous": .string("volume")])
    #expect(canonical.stackTag == "volume")
    #expect(
      DBusNotification(appName: "a", summary: "s", hints: ["x-dunst-stack-tag": .string("")]).stackTag == nil)
  }

  @Test func actions_pairUpAndDropATrailingKeyOrEmptyKeys() {
    let call = DBusNotification(
      appName: "a", summary: "s", actions: ["yes", "Yes", "", "Empty", "no", "No", "lone"])
    #expect(call.actionPairs == [Action(key: "yes", label: "Yes"), Action(key: "no", label: "No")])
  }

  @Test func forwarding_aNotice_carriesTitleBodyHintsActionsAndItsWholeLife() {
    let notice = Notice(
      id: 3, kind: .notice, title: "Backup <done>", body: "<b>3</b> & 4 <3", app: "restic",
      urgency: .critical,
      hints: Hints(category: "transfer.complete", desktopEntry: "restic", transient: true),
      fadeIn: 1, hold: 20, fadeOut: 1, actions: [Action(key: "open", label: "Open")])
    let call = DBusNotification(
      forwarding: notice, replacesID: 9, firstShowing: true, serverReadsMarkup: true)
    #expect(call.summary == "Backup <done>")
    // Markup goes to a server that reads it as well-formed markup; hints as the client sent them.
    #expect(call.body == "<b>3</b> &amp; 4 &lt;3")
    #expect(call.hints["category"] == .string("transfer.complete"))
    #expect(call.hints["desktop-entry"] == .string("restic"))
    #expect(call.hints["transient"] == .boolean(true))
    #expect(call.hints["resident"] == nil)
    #expect(call.appName == "restic")
    #expect(call.replacesID == 9)
    #expect(call.hints["urgency"] == .byte(2))
    #expect(call.actions == ["open", "Open"])
    #expect(call.expireTimeout == 22_000)
  }

  @Test func forwarding_toAServerWithoutMarkup_flattensTheBody() {
    let notice = Notice(id: 1, kind: .notice, title: "t", body: "<i>3</i> &lt; <a href=\"x\">4</a> <3")
    let call = DBusNotification(
      forwarding: notice, replacesID: 0, firstShowing: true, serverReadsMarkup: false)
    #expect(call.body == "3 < 4 <3")
  }

  @Test func desktopHints_areReadTolerantly_andWrongTypesIgnored() {
    let call = DBusNotification(
      appName: "a", summary: "s",
      hints: [
        "category": .string("email.arrived"), "desktop-entry": .string("org.gnome.Evolution.desktop"),
        "transient": .byte(1), "resident": .boolean(true),
        "sound-file": .string("file:///usr/share/a%20b.oga"),
        "sound-name": .int32(4), "suppress-sound": .string("yes"), "x": .int32(10), "y": .string("no"),
      ])
    #expect(
      call.desktopHints
        == Hints(
          category: "email.arrived", desktopEntry: "org.gnome.Evolution", transient: true, resident: true,
          soundFile: "/usr/share/a b.oga"))
    #expect(DBusNotification(appName: "a", summary: "s", hints: ["x": .int32(1)]).desktopHints == nil)
    #expect(
      DBusNotification(appName: "a", summary: "s", hints: ["transient": .boolean(false)]).desktopHints == nil)
  }

  @Test func capabilities_sayOnlyWhatIsDone() {
    #expect(
      DBusNames.capabilities(popups: false, sound: false) == [
        "actions", "body", "body-markup", "inline-reply", "persistence",
      ])
    #expect(
      DBusNames.capabilities(popups: true, sound: true)
        == [
          "actions", "body", "body-markup", "action-icons", "icon-static", "inline-reply", "persistence",
          "sound",
        ])
  }

  @Test func forwarding_aNoticeThatHoldsUntilEnded_neverExpires() {
    let notice = Notice(id: 1, kind: .notice, title: "t", hold: 0)
    #expect(DBusNotification.expireTimeout(for: notice, firstShowing: true) == 0)
  }

  @Test func forwarding_anUpdate_leavesTheFadeInOut() {
    let notice = Notice(id: 1, kind: .notice, title: "t", fadeIn: 2, hold: 3, fadeOut: 1)
    #expect(DBusNotification.expireTimeout(for: notice, firstShowing: false) == 4000)
  }

  @Test func forwarding_anEndedProgress_showsItsMessageUntilClosed() {
    let notice = Notice(id: 1, kind: .progress, title: "Build", body: "linking", value: 90, message: "done")
    let call = DBusNotification(
      forwarding: notice, replacesID: 4, firstShowing: false, serverReadsMarkup: false)
    #expect(call.body == "done")
    #expect(call.hints["value"] == .int32(90))
    #expect(call.expireTimeout == 0)
  }

  @Test(arguments: [
    (Outcome?.some(.completed), DBusCloseReason.expired), (.timedOut, .expired), (.dismissed, .dismissed),
    (.cancelled, .undefined), (.replaced, .undefined), (nil, .undefined),
  ])
  func closeReason_followsTheOutcome(outcome: Outcome?, reason: DBusCloseReason) {
    let notice = Notice(id: 1, kind: .notice, title: "t", outcome: outcome)
    #expect(DBusNotificationServer.closeReason(notice) == reason)
  }

  @Test func closeReason_ofANoticeWhoseActionWasChosen_isDismissed() {
    // A person chose: reason 2, as dunst, mako and GNOME send, though it ends `completed`.
    let invoked = Notice(id: 1, kind: .notice, title: "t", invoked: "open", outcome: .completed)
    #expect(DBusNotificationServer.closeReason(invoked) == .dismissed)
  }

  @Test func anInlineReplyAction_isAField_withThePlaceholderTheClientGives() {
    let kde = DBusNotification(
      appName: "chat", summary: "s", actions: ["default", "", "inline-reply", "Reply", "later", "Later"],
      hints: ["x-kde-reply-placeholder-text": .string("Answer Ada")])
    #expect(kde.actionPairs.map(\.key) == ["default", "later"])
    #expect(kde.replyPlaceholder == "Answer Ada")
    let labelled = DBusNotification(
      appName: "chat", summary: "s", actions: ["inline-reply", "Say something"])
    #expect(labelled.replyPlaceholder == "Say something")
    #expect(
      DBusNotification(appName: "chat", summary: "s", actions: ["inline-reply", ""]).replyPlaceholder
        == "Reply")
    #expect(
      DBusNotification(appName: "chat", summary: "s", actions: ["later", "Later"]).replyPlaceholder == nil)
  }

  @Test func theActionIconsHint_isKept_andPassedOnWhenForwarding() {
    let call = DBusNotification(appName: "a", summary: "s", hints: ["action-icons": .boolean(true)])
    #expect(call.desktopHints?.hasActionIcons == true)
    let notice = Notice(id: 1, kind: .notice, title: "t", hints: Hints(actionIcons: true))
    let forwarded = DBusNotification(
      forwarding: notice, replacesID: 0, firstShowing: true, serverReadsMarkup: true)
    #expect(forwarded.hints["action-icons"] == .boolean(true))
  }
}

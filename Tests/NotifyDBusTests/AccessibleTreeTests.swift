import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyDBus

/// The AT-SPI tree as a value: what the cards on the screen become, and what each change tells a
/// screen reader, on a clock of the test's.
@Suite("The accessible tree of the cards")
struct AccessibleTreeTests {
  private func notice(
    _ id: Int, _ title: String, body: String? = nil, app: String? = "deploy", actions: [Action]? = nil,
    reply: String? = nil
  ) -> Notice {
    var notice = Notice(id: id, kind: .notice, title: title, body: body, app: app, phase: .holding)
    notice.actions = actions
    notice.reply = reply
    return notice
  }

  @Test func aCard_isANotificationNamedByItsApp_describedByItsBody_withALabelButtonsAndItsReplyField() throws
  {
    var tree = AccessibleTree()
    let events = tree.show(
      [
        notice(
          7, "Deploy <b>42</b>", body: "ready &amp; <i>waiting</i>",
          actions: [
            Action(key: "default", label: ""), Action(key: "yes", label: "Approve"),
            Action(key: "no", label: ""),
          ],
          reply: "Say why")
      ], at: 0)
    let path = try #require(tree.cardPaths.first)
    #expect(
      events == [
        .childrenChanged(parent: AccessibleTree.rootPath, added: true, index: 0, child: path),
        .stateChanged(path: path, state: "showing", on: true),
      ])
    let card = try #require(tree.node(path))
    #expect(card.role == .notification && card.name == "deploy" && card.description == "ready & waiting")
    #expect(card.states == .onScreen && card.parent == AccessibleTree.rootPath && card.notice == 7)
    // Its own actions: the default one a click would choose, and dismissing it.
    #expect(card.actions.map(\.deed) == [.invoke("default"), .dismiss, .snooze])
    #expect(card.actions.map(\.name) == ["open", "dismiss", "remind me"])
    let children = card.children.compactMap { tree.node($0) }
    #expect(children.map(\.role) == [.label, .entry, .pushButton, .pushButton])
    #expect(children[0].name == "Deploy 42. ready & waiting" && children[0].text == children[0].name)
    #expect(children[1].name == "Say why" && children[1].states.contains(.editable))
    #expect(children[1].actions.map(\.deed) == [.reply])
    // A button without a label is named by its key.
    #expect(children[2...].map(\.name) == ["Approve", "no"])
    #expect(children[2...].map { $0.actions.map(\.deed) } == [[.invoke("yes")], [.invoke("no")]])
    #expect(children.allSatisfy { $0.parent == path && $0.notice == 7 })
    #expect(card.interfaces.contains(AccessibleTree.Interface.action))
    #expect(children[1].interfaces.contains(AccessibleTree.Interface.editableText))
    #expect(
      tree.node(AccessibleTree.rootPath)?.interfaces.contains(AccessibleTree.Interface.application) == true)
  }

  @Test func aCardIsAnnouncedOnce_notForEachShowing_andALeavingOneIsUnannouncedRemovedAndDefunct() throws {
    var tree = AccessibleTree()
    _ = tree.show([notice(1, "One")], at: 0)
    let one = try #require(tree.cardPaths.first)
    // Shown again and again (the display tells on each change of its cards): nothing new.
    #expect(tree.show([notice(1, "One")], at: 0.1).isEmpty)
    var moved = notice(1, "One")
    moved.phase = .fadingOut
    moved.opacity = 0.4
    #expect(tree.show([moved], at: 0.2).isEmpty)
    let added = tree.show([notice(2, "Two"), notice(1, "One")], at: 1)
    let two = try #require(tree.cardPaths.last)
    #expect(
      added == [
        .childrenChanged(parent: AccessibleTree.rootPath, added: true, index: 1, child: two),
        .stateChanged(path: two, state: "showing", on: true),
      ])
    let gone = tree.show([notice(2, "Two")], at: 2)
    #expect(
      gone == [
        .stateChanged(path: one, state: "showing", on: false),
        .childrenChanged(parent: AccessibleTree.rootPath, added: false, index: 0, child: one),
        .stateChanged(path: one, state: "defunct", on: true),
      ])
    #expect(tree.cardPaths == [two])
    // It answers a while, defunct, then not at all; its path is never used again.
    let label = try #require(tree.node(one)?.children.first)
    #expect(
      tree.node(one)?.states.contains(.defunct) == true && tree.node(label)?.states.contains(.defunct) == true
    )
    #expect(tree.nextSweep == 2 + AccessibleTree.linger)
    tree.sweep(at: 2 + AccessibleTree.linger - 0.1)
    #expect(tree.node(one) != nil)
    tree.sweep(at: 2 + AccessibleTree.linger)
    #expect(tree.node(one) == nil && tree.node(label) == nil && tree.nextSweep == nil)
    _ = tree.show([notice(2, "Two"), notice(1, "One")], at: 10)
    #expect(tree.cardPaths.count == 2 && !tree.cardPaths.contains(one))
  }

  @Test func aReplacementsNewText_isToldAndAnnouncedAgain_atMostOnceAnInterval() throws {
    var tree = AccessibleTree()
    _ = tree.show([notice(1, "Build", body: "running")], at: 0)
    let card = try #require(tree.cardPaths.first)
    let label = try #require(tree.node(card)?.children.first)
    // Within the interval: the words change, with no announcement.
    let early = tree.show([notice(1, "Build", body: "50 %")], at: 1)
    #expect(
      early == [
        .propertyChanged(path: card, property: "accessible-description", value: "50 %"),
        .propertyChanged(path: label, property: "accessible-name", value: "Build. 50 %"),
      ])
    let later = tree.show([notice(1, "Build done", body: "50 %")], at: 1 + AccessibleTree.announceInterval)
    #expect(
      later == [
        .propertyChanged(path: label, property: "accessible-name", value: "Build done. 50 %"),
        .stateChanged(path: card, state: "showing", on: true),
      ])
    #expect(tree.node(label)?.name == "Build done. 50 %" && tree.node(card)?.description == "50 %")
    // New buttons: the old children go and new ones come, under the same card.
    let buttons = tree.show(
      [notice(1, "Build done", body: "50 %", actions: [Action(key: "open", label: "Open")])], at: 10)
    let children = try #require(tree.node(card)?.children)
    #expect(children.count == 2 && !children.contains(label))
    #expect(
      buttons == [
        .childrenChanged(parent: card, added: false, index: 0, child: label),
        .childrenChanged(parent: card, added: true, index: 0, child: children[0]),
        .childrenChanged(parent: card, added: true, index: 1, child: children[1]),
      ])
    #expect(tree.node(label)?.states.contains(.defunct) == true)
  }

  @Test func anIndicatorsValue_isAProgressBarThatMoves() throws {
    var tree = AccessibleTree()
    var copying = Notice(id: 3, kind: .progress, title: "Copying", value: 40, phase: .holding)
    _ = tree.show([copying], at: 0)
    let card = try #require(tree.cardPaths.first)
    let bar = try #require(tree.node(card)?.children.last)
    #expect(tree.node(bar)?.role == .progressBar && tree.node(bar)?.value == 40)
    #expect(tree.node(bar)?.interfaces.contains(AccessibleTree.Interface.value) == true)
    copying.value = 75
    #expect(tree.show([copying], at: 0.5) == [.valueChanged(path: bar)])
    #expect(tree.node(bar)?.value == 75 && tree.node(bar)?.name == "75%")
    // No app: the card is named notifyd's.
    #expect(tree.node(card)?.name == "notifyd")
  }

  @Test func theReplyField_takesText_onlyWhileItShows() throws {
    var tree = AccessibleTree()
    _ = tree.show([notice(1, "Chat", reply: "")], at: 0)
    let card = try #require(tree.cardPaths.first)
    let field = try #require(tree.node(card)?.children.first { tree.node($0)?.role == .entry })
    #expect(tree.node(field)?.name == "Reply")
    let taken = tree.setText("on my way", at: field)
    #expect(taken && tree.node(field)?.text == "on my way")
    let onTheCard = tree.setText("x", at: card)
    #expect(!onTheCard)
    // No longer than a reply may be: refused, the text kept.
    let long = tree.setText(String(repeating: "x", count: RequestLimits.maximumReplyLength + 1), at: field)
    #expect(!long && tree.node(field)?.text == "on my way")
    _ = tree.show([], at: 1)
    let late = tree.setText("late", at: field)
    #expect(!late)
  }

  @Test func lingeringCards_areBoundedInNumber() {
    var tree = AccessibleTree()
    for round in 0..<(AccessibleTree.maximumLingering + 50) {
      _ = tree.show([notice(round, "n")], at: Double(round) * 0.001)
    }
    _ = tree.show([], at: 1)
    // The root and at most `maximumLingering` finished cards, two objects each (card and label).
    #expect(tree.cardPaths.isEmpty)
    #expect(tree.nodeCount <= 1 + 2 * AccessibleTree.maximumLingering)
  }

  @Test func whatAListenerHears_byTheRegistrysNames() {
    #expect(AccessibilityBridge.hearsShowing("Object:StateChanged:Showing"))
    #expect(AccessibilityBridge.hearsShowing("Object:StateChanged:"))
    #expect(AccessibilityBridge.hearsShowing("Object::"))
    #expect(!AccessibilityBridge.hearsShowing("Object:StateChanged:Focused"))
    #expect(!AccessibilityBridge.hearsShowing("Window:Create:"))
    #expect(!AccessibilityBridge.hearsShowing("Object:ChildrenChanged:"))
  }

  @Test func theCenter_isAWindowWithAList_itsChosenRowFocused_andItsRowsFollowTheListing() throws {
    var tree = AccessibleTree()
    let heading = CenterOutline.Row(notice: nil, group: "mail", name: "mail, 2 notices", description: "")
    let two = CenterOutline.Row(notice: 2, name: "t2", description: "mail, unread")
    let one = CenterOutline.Row(notice: 1, name: "t1", description: "mail")
    var events = tree.showCenter(CenterOutline(rows: [heading, two, one], chosen: nil), at: 0)
    let window = try #require(tree.node(AccessibleTree.rootPath)?.children.first)
    #expect(
      events == [
        .childrenChanged(parent: AccessibleTree.rootPath, added: true, index: 0, child: window),
        .stateChanged(path: window, state: "active", on: true),
        .window(path: window, member: "Activate"),
      ])
    #expect(tree.cardPaths.isEmpty)
    let list = try #require(tree.node(window)?.children.first)
    #expect(tree.node(window)?.role == .window && tree.node(list)?.role == .list)
    var rows = try #require(tree.node(list)?.children)
    #expect(rows.compactMap { tree.node($0)?.role } == [.heading, .listItem, .listItem])
    let entry = try #require(tree.node(rows[1]))
    #expect(entry.name == "t2" && entry.description == "mail, unread" && entry.notice == 2)
    #expect(entry.actions.map(\.name) == ["restore", "forget"])
    #expect(entry.actions.map(\.deed) == [.openEntry, .forgetEntry])
    // Down: the focus moves to the chosen row, once; the same outline again tells nothing.
    events = tree.showCenter(CenterOutline(rows: [heading, two, one], chosen: 1), at: 1)
    #expect(events == [.stateChanged(path: rows[1], state: "focused", on: true), .focused(path: rows[1])])
    #expect(tree.node(rows[1])?.states.isSuperset(of: [.focused, .selected]) == true)
    #expect(tree.showCenter(CenterOutline(rows: [heading, two, one], chosen: 1), at: 1).isEmpty)
    // Entry 2 forgotten: its row goes (defunct, answering a while), the focus moves to the next,
    // and the heading's count is told in place.
    let fewer = CenterOutline.Row(notice: nil, group: "mail", name: "mail, 1 notice", description: "")
    events = tree.showCenter(CenterOutline(rows: [fewer, one], chosen: 1), at: 2)
    #expect(
      events == [
        .childrenChanged(parent: list, added: false, index: 1, child: rows[1]),
        .stateChanged(path: rows[1], state: "defunct", on: true),
        .propertyChanged(path: rows[0], property: "accessible-name", value: "mail, 1 notice"),
        .stateChanged(path: rows[2], state: "focused", on: true), .focused(path: rows[2]),
      ])
    #expect(tree.node(rows[1])?.states.contains(.defunct) == true)
    rows = try #require(tree.node(list)?.children)
    #expect(rows.count == 2)
    // A live entry's buttons are push buttons under it.
    let running = CenterOutline.Row(
      notice: 3, name: "live", description: "ci, on the screen", live: true,
      buttons: [Action(key: "yes", label: "Approve")])
    _ = tree.showCenter(CenterOutline(rows: [running, fewer, one], chosen: 2), at: 3)
    let live = try #require(tree.node(list)?.children.first)
    #expect(tree.node(live)?.actions.map(\.name) == ["open", "dismiss"])
    let button = try #require(tree.node(live)?.children.first.flatMap { tree.node($0) })
    #expect(
      button.role == .pushButton && button.name == "Approve" && button.actions.map(\.deed) == [.invoke("yes")]
    )
    // Closed: the window is deactivated, removed and defunct; gone once its time is up.
    events = tree.showCenter(nil, at: 4)
    #expect(
      events == [
        .window(path: window, member: "Deactivate"),
        .stateChanged(path: window, state: "showing", on: false),
        .childrenChanged(parent: AccessibleTree.rootPath, added: false, index: 0, child: window),
        .stateChanged(path: window, state: "defunct", on: true),
      ])
    #expect(tree.node(live)?.states.contains(.defunct) == true)
    tree.sweep(at: 4 + AccessibleTree.linger)
    #expect(tree.node(window) == nil && tree.node(live) == nil && tree.nodeCount == 1)
  }
}

import Dispatch
import Foundation
import NotifyCore
import NotifyProtocol
import NotifyTestSupport
import Testing

/// What the stress run saw: ids accepted, finish events per id, and errors by kind.
final class StressLedger: Sendable {
  private struct State {
    var accepted: [Int] = []
    var finishes: [Int: [Outcome]] = [:]
    var unexpected: [String] = []
  }
  private let state = Protected(State())

  func accept(_ id: Int) { state.withLock { $0.accepted.append(id) } }
  func finished(_ id: Int, _ outcome: Outcome) {
    state.withLock { $0.finishes[id, default: []].append(outcome) }
  }
  func unexpected(_ what: String) { state.withLock { $0.unexpected.append(what) } }

  var accepted: Set<Int> { state.withLock { Set($0.accepted) } }
  var finishes: [Int: [Outcome]] { state.withLock { $0.finishes } }
  var unexpectedErrors: [String] { state.withLock { $0.unexpected } }
  func randomAccepted(using generator: inout SplitMix64) -> Int? {
    state.withLock { $0.accepted.randomElement(using: &generator) }
  }
}

@Suite("NoticeQueue under load on the real clock")
struct NoticeQueueStressTests {
  static let threads = 8
  static let requestsPerThread = 500

  @Test(.timeLimit(.minutes(2)))
  func concurrentRequests_everyNoticeFinishesExactlyOnce_andHistoryAgrees() throws {
    var settings = QueueSettings()
    settings.maxVisible = 6
    settings.progressMaxVisible = 3
    settings.capacity = 100_000
    settings.historySize = 100_000
    let queue = NoticeQueue(settings: settings, scheduler: TimingThread())
    let ledger = StressLedger()
    let watcher = try queue.watch { event in
      if event.kind == .finished, let id = event.id {
        ledger.finished(id, event.notice?.outcome ?? .dismissed)
      }
    }
    defer { watcher.cancel() }
    let frames = try queue.watch(frames: true, fps: 240) { _ in }
    defer { frames.cancel() }

    DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
      var random = SplitMix64(state: UInt64(thread + 1) * 7919)
      Self.run(queue, ledger, &random, thread: thread)
    }
    queue.resume()

    let accepted = ledger.accepted
    #expect(accepted.count > Self.threads * Self.requestsPerThread / 2)
    let drained = eventually(timeout: 60) {
      queue.list().isEmpty && ledger.finishes.count >= accepted.count
    }
    #expect(drained, "unfinished: \(queue.list().map(\.id).prefix(20))")
    letLanesRun(queue)  // a duplicate finish event, if any operation were to send one, arrives

    let finishes = ledger.finishes
    let duplicates = finishes.filter { $0.value.count != 1 }
    #expect(duplicates.isEmpty, "finished more than once: \(duplicates.keys.sorted().prefix(20))")
    #expect(Set(finishes.keys) == accepted)
    #expect(ledger.unexpectedErrors.isEmpty, "\(ledger.unexpectedErrors.prefix(10))")

    let history = queue.history()
    #expect(history.count == accepted.count)
    #expect(Set(history.map(\.id)) == accepted)
    #expect(zip(history, history.dropFirst()).allSatisfy { $0.finished! >= $1.finished! })  // newest first
    for notice in history {
      #expect(notice.phase == .finished)
      #expect(notice.outcome != nil)
      #expect(notice.outcome == finishes[notice.id]?.first)
    }
    let status = queue.status()
    #expect(status.waiting + status.queued + status.visible == 0)
    #expect(status.finished == accepted.count)
    #expect(eventually { !queue.isFrameTimerArmed })
    // How long it took is not judged here: the time limit above guards against a hang, and under
    // Thread Sanitizer beside another `make test` the whole run took 78 s with every check passing.
  }

  /// One thread's share of requests: mostly new notices with millisecond timings, and among them
  /// cancels, ends, updates, suspends and resumes aimed at random notices.
  static func run(_ queue: NoticeQueue, _ ledger: StressLedger, _ random: inout SplitMix64, thread: Int) {
    func ms(_ upTo: Double) -> Double { Double.random(in: 0...upTo, using: &random) / 1000 }
    var recent: [Int] = []
    for request in 0..<requestsPerThread {
      do {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<55:
          let key = Bool.random(using: &random) ? nil : "key\(Int.random(in: 0..<12, using: &random))"
          let after = Int.random(in: 0..<10, using: &random) == 0 ? recent.last : nil
          let id = try queue.show(
            ShowParameters(
              title: "t\(thread)-\(request)", urgency: Urgency.allCases.randomElement(using: &random),
              tag: "tag\(thread % 3)", key: key, delay: Bool.random(using: &random) ? ms(3) : nil,
              fadeIn: ms(1.5), hold: 0.0001 + ms(1.5), fadeOut: ms(1.5),
              easeIn: Easing.allCases.randomElement(using: &random), after: after,
              actions: Bool.random(using: &random) ? [Action(key: "ok", label: "OK")] : nil))
          ledger.accept(id)
          recent.append(id)
        case 55..<70:
          let key = Bool.random(using: &random) ? nil : "progress\(Int.random(in: 0..<4, using: &random))"
          let reply = try queue.progress(
            ProgressParameters(
              title: "p\(thread)-\(request)", key: key, value: request, timeout: 0.0005 + ms(3),
              delay: Bool.random(using: &random) ? ms(2) : nil, fadeIn: ms(1), fadeOut: ms(1)))
          ledger.accept(reply.id)
          recent.append(reply.id)
        case 70..<80:
          if let id = ledger.randomAccepted(using: &random) {
            _ = try queue.cancel(CancelParameters(id: id, now: Bool.random(using: &random)))
          }
        case 80..<87:
          if let id = ledger.randomAccepted(using: &random) {
            let message = Bool.random(using: &random) ? "done" : nil
            _ = try queue.end(
              EndParameters(id: id, message: message, hold: Bool.random(using: &random) ? ms(1) : nil))
          }
        case 87..<90:
          if let id = ledger.randomAccepted(using: &random) {
            _ = try queue.update(UpdateParameters(id: id, body: "news", value: request))
          }
        case 90..<91:
          if let id = ledger.randomAccepted(using: &random) {
            _ = try queue.invoke(InvokeParameters(id: id, action: "ok"))
          }
        case 91..<92:
          if let id = ledger.randomAccepted(using: &random) {
            _ = try queue.dismiss(DismissParameters(id: id))
          }
        case 92..<94:
          _ = try queue.cancel(CancelParameters(tag: "tag\(thread % 3)", now: Bool.random(using: &random)))
        case 94..<96:
          try queue.suspend(for: Bool.random(using: &random) ? ms(2) : nil)
        case 96..<98:
          queue.resume()
        default:
          _ = queue.status()
          _ = queue.list()
        }
      } catch QueueError.invalidArgument(field: "id", reason: _) {
        // Update, Invoke or dismiss of a notice that finished meanwhile or is not visible: expected.
      } catch QueueError.invalidArgument(field: "action", reason: _) {
        // Invoke of a notice without actions: expected.
      } catch {
        ledger.unexpected("\(error)")
      }
      if request % 50 == 0 { usleep(200) }
    }
  }
}

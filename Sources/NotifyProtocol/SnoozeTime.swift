import FoundationEssentials
import Glibc

/// When a snooze ends, as people say it (`notifyctl snooze`, `[Display] Snooze=`): a while from now
/// (`10m`, `1h`, `90s`), the next time of day it is (`14:30`, `7:05:30`, local time), or `tomorrow`
/// (the next day at `morningHour`:00).
public enum SnoozeTime: Equatable, Sendable {
  /// Seconds from now.
  case after(Double)
  /// The next moment the local clock shows this time (today, or tomorrow once it has passed).
  case at(hour: Int, minute: Int, second: Int)
  /// The next day, at `morningHour`:00 local time.
  case tomorrow
  /// Seconds since the epoch.
  case epoch(Double)

  /// The hour `tomorrow` means.
  public static let morningHour = 9

  /// What a notice may be snoozed for when `[Display] Snooze=` says nothing: 10 minutes, an hour,
  /// tomorrow morning.
  public static let defaultChoices: [SnoozeTime] = [.after(600), .after(3600), .tomorrow]
  /// The longest a notice is snoozed for: a week.
  public static let longest = 7 * 86_400.0
  /// The most choices `[Display] Snooze=` lists.
  public static let maximumChoices = 8

  /// `[Display] Snooze=`'s list, as the daemon and `notifyctl menu` both read it: 1 to
  /// `maximumChoices` times separated by commas, each a while above 0 and up to `longest`, a time
  /// of day or `tomorrow`; `nil` when any of it is not.
  public static func choices(_ text: String) -> [SnoozeTime]? {
    var choices: [SnoozeTime] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      guard let time = SnoozeTime(String(part)) else { return nil }
      if case .after(let seconds) = time, seconds <= 0 || seconds > longest { return nil }
      choices.append(time)
    }
    return (1...maximumChoices).contains(choices.count) ? choices : nil
  }

  /// `text` read as a duration (a bare number is seconds), a time of day `H:MM[:SS]`, `tomorrow`;
  /// with `epochs`, also a number of seconds since the epoch (ten digits and more). `nil` for
  /// anything else.
  public init?(_ text: String, epochs: Bool = false) {
    let text = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
      .lowercased()
    if text == "tomorrow" {
      self = .tomorrow
    } else if text.contains(":") {
      let parts = text.split(separator: ":", omittingEmptySubsequences: false)
      guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 }),
        let hour = Int(parts[0]), let minute = Int(parts[1]), parts[1].count == 2,
        (0..<24).contains(hour), (0..<60).contains(minute)
      else { return nil }
      let second = parts.count == 3 ? Int(parts[2]) : 0
      guard let second, (0..<60).contains(second), parts.count == 2 || parts[2].count == 2 else { return nil }
      self = .at(hour: hour, minute: minute, second: second)
    } else if epochs, text.count >= 10, text.allSatisfy({ $0.isASCII && $0.isNumber }),
      let seconds = Double(text)
    {
      self = .epoch(seconds)
    } else if let seconds = DurationParser.seconds(text) {
      self = .after(seconds)
    } else {
      return nil
    }
  }

  /// The wall-clock time (seconds since the epoch) it ends at, counted from `now`, in the local time
  /// zone (`TZ`, else /etc/localtime).
  public func end(from now: Double) -> Double {
    switch self {
    case .after(let seconds): return now + seconds
    case .epoch(let seconds): return seconds
    case .at(let hour, let minute, let second):
      let today = Self.local(now, dayOffset: 0, hour: hour, minute: minute, second: second)
      return today > now ? today : Self.local(now, dayOffset: 1, hour: hour, minute: minute, second: second)
    case .tomorrow:
      return Self.local(now, dayOffset: 1, hour: Self.morningHour, minute: 0, second: 0)
    }
  }

  /// Words for a button or a menu entry: `10 min`, `1 h`, `1 h 30 min`, `14:30`, `Tomorrow`.
  public var label: String {
    switch self {
    case .after(let seconds):
      let whole = Int(seconds.rounded())
      if whole < 60 { return "\(whole) s" }
      let hours = whole / 3600
      let minutes = (whole % 3600) / 60
      if whole >= 86_400, whole % 86_400 == 0 { return whole == 86_400 ? "1 day" : "\(whole / 86_400) days" }
      switch (hours, minutes) {
      case (0, _): return "\(minutes) min"
      case (_, 0): return "\(hours) h"
      default: return "\(hours) h \(minutes) min"
      }
    case .at(let hour, let minute, let second): return Self.clock(hour, minute, second)
    case .tomorrow: return "Tomorrow"
    case .epoch(let seconds): return "\(Int(seconds))"
    }
  }

  /// As the config writes it, read back the same by `init`: `10m`, `1h`, `90s`, `14:30`, `tomorrow`.
  public var configText: String {
    switch self {
    case .after(let seconds):
      if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 {
        return "\(Int(seconds / 3600))h"
      }
      if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
      return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    case .at(let hour, let minute, let second): return Self.clock(hour, minute, second)
    case .tomorrow: return "tomorrow"
    case .epoch(let seconds): return "\(Int(seconds))"
    }
  }

  /// How a choice is offered after "Remind me": `in 10 min`, `at 14:30`, `tomorrow`.
  public var phrase: String {
    switch self {
    case .after: "in \(label)"
    case .at, .epoch: "at \(label)"
    case .tomorrow: "tomorrow"
    }
  }

  /// The request that snoozes notice `id` until this time, counted from `now` (wall clock): a
  /// while as a duration, anything else as the time it ends.
  public func request(for id: Int, now: Double) -> SnoozeParameters {
    if case .after(let seconds) = self { return SnoozeParameters(id: id, duration: seconds) }
    return SnoozeParameters(id: id, until: end(from: now))
  }

  /// `14:30`, or `9:05:07` with seconds.
  private static func clock(_ hour: Int, _ minute: Int, _ second: Int) -> String {
    let clock = "\(hour):\(minute < 10 ? "0" : "")\(minute)"
    return second == 0 ? clock : "\(clock):\(second < 10 ? "0" : "")\(second)"
  }

  /// `hour:minute:second` local time on the day `dayOffset` days after the one `now` falls on (the
  /// C library normalises a day past the month's end, and finds daylight saving time itself).
  private static func local(_ now: Double, dayOffset: Int32, hour: Int, minute: Int, second: Int) -> Double {
    var clock = time_t(now.rounded(.down))
    var parts = tm()
    localtime_r(&clock, &parts)
    parts.tm_mday += dayOffset
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    parts.tm_isdst = -1
    return Double(mktime(&parts))
  }
}

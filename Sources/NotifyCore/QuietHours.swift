import Foundation

/// One window of quiet hours as `[DoNotDisturb] Schedule=` writes it: `22:00-07:00`, or with the
/// days it starts on, `Mon-Fri 22:00-07:00`, `Sat,Sun 13:00-15:00`. A window whose end is not after
/// its start ends the next day; equal times make a whole day.
public struct QuietWindow: Sendable, Equatable, CustomStringConvertible {
  /// The days it starts on, 1 = Monday … 7 = Sunday.
  public var days: Set<Int>
  /// Minutes after local midnight.
  public var start: Int
  public var end: Int

  static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

  public init(days: Set<Int> = Set(1...7), start: Int, end: Int) {
    self.days = days
    self.start = start
    self.end = end
  }

  /// Reads one window; `nil` when it is not one.
  public init?(_ text: String) {
    let parts = text.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 1 || parts.count == 2 else { return nil }
    var days = Set(1...7)
    if parts.count == 2 {
      guard let named = Self.days(parts[0]) else { return nil }
      days = named
    }
    let times = parts.last!.split(separator: "-", omittingEmptySubsequences: false)
    guard times.count == 2, let start = Self.minutes(times[0]), let end = Self.minutes(times[1]) else {
      return nil
    }
    self.init(days: days, start: start, end: end)
  }

  /// `Mon-Fri`, `Sat,Sun`, `Mon-Wed,Fri`; a range may wrap (`Fri-Mon`).
  private static func days(_ text: Substring) -> Set<Int>? {
    var days = Set<Int>()
    for item in text.split(separator: ",", omittingEmptySubsequences: false) {
      let ends = item.split(separator: "-", omittingEmptySubsequences: false)
      guard ends.count <= 2 else { return nil }
      let numbers = ends.compactMap { name in
        dayNames.firstIndex { $0.caseInsensitiveCompare(name) == .orderedSame }.map { $0 + 1 }
      }
      guard numbers.count == ends.count else { return nil }
      var day = numbers[0]
      days.insert(day)
      while day != numbers.last! {
        day = day % 7 + 1
        days.insert(day)
      }
    }
    return days
  }

  /// `HH:MM`, 00:00 to 24:00.
  private static func minutes(_ text: Substring) -> Int? {
    let fields = text.split(separator: ":", omittingEmptySubsequences: false)
    guard fields.count == 2, fields.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
      let hours = Int(fields[0]), let minutes = Int(fields[1]), (0...59).contains(minutes),
      (0...23).contains(hours) || (hours == 24 && minutes == 0)
    else { return nil }
    return hours * 60 + minutes
  }

  /// Minutes it lasts: up to a whole day.
  var length: Int {
    let length = (end - start + 1440) % 1440
    return length == 0 ? 1440 : length
  }

  public var description: String {
    func clock(_ minutes: Int) -> String {
      let hours = minutes / 60
      let rest = minutes % 60
      return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
    let times = "\(clock(start))-\(clock(end))"
    guard days != Set(1...7) else { return times }
    return days.sorted().map { Self.dayNames[$0 - 1] }.joined(separator: ",") + " " + times
  }
}

/// The quiet hours of `[DoNotDisturb] Schedule=` in a time zone: whether an instant falls inside
/// them, when they end, and when they next begin. Windows are in local time, so a window keeps its
/// clock times across a change to or from daylight saving time: `22:00-07:00` lasts an hour less on
/// the night the clocks go forward. A start or end the change skips is the instant of the change;
/// one it repeats is its first occurrence.
public struct QuietHours: Sendable, Equatable {
  public var windows: [QuietWindow]
  public var timeZone: TimeZone

  public init(windows: [QuietWindow] = [], timeZone: TimeZone = .current) {
    self.windows = windows
    self.timeZone = timeZone
  }

  public var isEmpty: Bool { windows.isEmpty }

  /// When the quiet time `wall` falls in ends (windows that meet or overlap are one), or `nil` when
  /// `wall` is not quiet. Quiet for more than a week on end reads as ending a week on.
  public func end(ofQuietAt wall: Double) -> Double? {
    guard var end = latestEnd(ofWindowsContaining: wall) else { return nil }
    let limit = wall + 7 * 86_400
    while end < limit, let later = latestEnd(ofWindowsContaining: end) {
      end = later
    }
    return min(end, limit)
  }

  /// The first instant after `wall` at which a window begins, within the coming eight days.
  public func nextStart(after wall: Double) -> Double? {
    let today = localDay(of: wall)
    var earliest: Double?
    for day in today - 1...today + 8 {
      for window in windows where window.days.contains(weekday(of: day)) {
        let start = instant(day: day, minutes: window.start)
        if start > wall, start < (earliest ?? .infinity) { earliest = start }
      }
    }
    return earliest
  }

  /// The latest end among the windows that contain `wall`.
  private func latestEnd(ofWindowsContaining wall: Double) -> Double? {
    let today = localDay(of: wall)
    var latest: Double?
    for day in today - 1...today {
      for window in windows where window.days.contains(weekday(of: day)) {
        let start = instant(day: day, minutes: window.start)
        let end = instant(day: day, minutes: window.start + window.length)
        if start <= wall, end > wall, end > (latest ?? -Double.infinity) { latest = end }
      }
    }
    return latest
  }

  private func offset(at wall: Double) -> Double {
    Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall)))
  }

  /// Days since 1970-01-01 in local time.
  func localDay(of wall: Double) -> Int {
    Int(((wall + offset(at: wall)) / 86_400).rounded(.down))
  }

  /// 1 = Monday … 7 = Sunday; day 0 was a Thursday.
  func weekday(of day: Int) -> Int {
    ((day + 3) % 7 + 7) % 7 + 1
  }

  /// The instant local time reads `minutes` after the midnight that begins `day` (minutes may run
  /// past midnight into the next days).
  func instant(day: Int, minutes: Int) -> Double {
    let local = Double(day) * 86_400 + Double(minutes) * 60
    // Offsets a day either side bracket the instant: changes of offset are months apart.
    let before = local - offset(at: local - 86_400)
    let after = local - offset(at: local + 86_400)
    let fits = [before, after].filter { offset(at: $0) == local - $0 }
    if let first = fits.min() { return first }
    // In the hour the clocks skip: the instant of the change, which lies between the two.
    var (low, high) = (min(before, after), max(before, after))
    let lowOffset = offset(at: low)
    while high - low > 1 {
      let middle = ((low + high) / 2).rounded(.down)
      if offset(at: middle) == lowOffset { low = middle } else { high = middle }
    }
    return high
  }
}

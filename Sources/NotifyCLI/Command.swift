import NotifyProtocol

/// One thing `notifyctl` can do, with every argument read and checked.
///
/// Where a verb maps onto one method, its case carries that method's parameters, ready to send.
public enum Command: Sendable, Equatable {
  /// `show`: queues a notice and prints its id, or with `wait` waits for it to finish.
  case show(ShowParameters, wait: Bool)
  /// `progress`: starts (or, by key, finds) a progress indicator and prints its id.
  case progress(ProgressParameters)
  /// `update`: changes a notice's text or value.
  case update(UpdateParameters)
  /// `end`: finishes a notice normally, with an optional closing message.
  case end(EndParameters)
  /// `cancel`: cancels notices by id, by tag or all of them.
  case cancel(CancelTarget, now: Bool)
  /// `dismiss`: closes notices as a person would (outcome `dismissed`): by id, by app, every
  /// visible one, or the newest visible one.
  case dismiss(DismissTarget)
  /// `invoke`: chooses one of a notice's actions (`id` nil: the newest visible notice's).
  case invoke(id: Int?, action: String)
  /// `snooze`: puts a notice off until `time` (`id` nil: the newest visible notice).
  case snooze(id: Int?, until: SnoozeTime)
  /// `unsnooze`: brings a snoozed notice back now.
  case unsnooze(id: Int)
  /// `reply`: answers a notice's reply field.
  case reply(ReplyParameters)
  /// `menu`: hands a notice's actions to a picker and invokes the chosen one (`id` nil: the newest
  /// visible notice's; `picker` nil: the first found for the display in use).
  case menu(id: Int?, picker: String?)
  /// `read`: marks finished notices read (ids, or all of them).
  case read(ReadParameters)
  /// `restore`: shows finished notices again as new notices (ids, or the last ones to finish).
  case restore(RestoreParameters)
  /// `forget`: removes finished notices from history and the store (ids, an app glob, or all).
  case forget(ForgetParameters)
  /// `center`: opens the notification center, closes it, or toggles it.
  case center(CenterAction)
  /// `suspend`: holds back new notices, for a while or until `resume`.
  case suspend(SuspendParameters)
  /// `resume`: lets held notices through again.
  case resume
  /// `reload`: makes the daemon re-read its config.
  case reload
  /// `status`: the queue's state and counts.
  case status(json: Bool)
  /// `list`: the unfinished notices (with `held`, those do-not-disturb holds back; with `snoozed`,
  /// the snoozed ones).
  case list(held: Bool, snoozed: Bool = false, json: Bool)
  /// `history`: finished notices, newest first.
  case history(HistoryOptions, json: Bool)
  /// `get`: one notice.
  case get(id: Int, json: Bool)
  /// `wait`: waits for a notice to finish and exits by its outcome.
  case wait(id: Int)
  /// `watch`: follows the queue's events.
  case watch(WatchOptions)
  /// `run`: runs a command under a progress indicator.
  case run(RunOptions)
  /// `call`: a raw Varlink call.
  case call(CallOptions)
  /// `--version`.
  case version
  /// `--help` or `help VERB`: usage, of everything or of one verb.
  case help(verb: String?)
}

/// Which notices `dismiss` names: ids, those of apps matching a glob, every visible notice, or the
/// newest visible one.
public enum DismissTarget: Sendable, Equatable {
  case ids([Int])
  case app(String)
  case all
  case newest
}

/// Which notices `cancel` names: exactly one of these.
public enum CancelTarget: Sendable, Equatable {
  case ids([Int])
  case tag(String)
  case all
}

import Foundation
import NotifyConfig
import NotifyCore
import NotifyDaemon
import NotifyProtocol
import NotifySupport

// notifyd: parse the command line, then run the daemon; map errors to exit statuses.
let usage = """
  Usage: notifyd [--socket PATH] [--config PATH] [--log-level LEVEL] [--log TARGET]
         notifyd --check-config [--config PATH]
         notifyd --version | --help

  Runs the notifyd daemon in the foreground: a queue of timed notices served over Varlink on
  $XDG_RUNTIME_DIR/notifyd.sock (or --socket PATH, or $NOTIFYD_SOCKET).

  Options:
    --socket PATH        serve on PATH
    --config PATH        read only this config file (default: $XDG_CONFIG_HOME/notifyd/notifyd.conf,
                         then each dir of $XDG_CONFIG_DIRS, then built-in defaults)
    --check-config       print the effective config, or the first problem as file:line: Key: reason
    --log-level LEVEL    error, warning, notice, info (default) or debug
    --log TARGET         journal, stderr or auto (default: journal when stderr goes to it)
    --version            print the version
    --help               print this help

  """

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data("notifyd: \(message)\n".utf8))
  exit(status)
}

var options = DaemonOptions()
var checkOnly = false
var logTarget = LogTarget.auto
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  var name = argument
  var inlineValue: String?
  if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
    name = String(argument[..<equals])
    inlineValue = String(argument[argument.index(after: equals)...])
  }
  func value() -> String {
    if let inlineValue { return inlineValue }
    guard let next = arguments.popFirst() else { fail("\(name) needs a value", status: 2) }
    return next
  }
  switch name {
  case "--version":
    print("notifyd \(Interface.version)")
    exit(0)
  case "--help", "-h":
    print(usage, terminator: "")
    exit(0)
  case "--socket":
    options.socketPath = value()
  case "--config":
    options.configPath = value()
  case "--check-config":
    checkOnly = true
  case "--log-level":
    let text = value()
    guard let level = LogLevel(name: text) else { fail("--log-level: unknown level '\(text)'", status: 2) }
    options.logLevel = level
  case "--log":
    let text = value()
    guard let target = LogTarget(rawValue: text) else { fail("--log: unknown target '\(text)'", status: 2) }
    logTarget = target
  default:
    fail("unknown option '\(argument)'; see notifyd --help", status: 2)
  }
}

if checkOnly { exit(Daemon.checkConfig(options)) }

let sink = logTarget.makeSink(environment: ProcessInfo.processInfo.environment)
let log = Logger(level: options.logLevel, sink: sink)
do {
  try Daemon(options: options, log: log).run()
} catch {
  log.error("\(error)")
  exit(1)
}

import Glibc
import NotifyCLI

exit(NotifyCtl.main(Array(CommandLine.arguments.dropFirst())))

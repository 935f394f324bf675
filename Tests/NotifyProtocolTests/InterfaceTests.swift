import NotifyProtocol
import Testing

@Suite("Interface description")
struct InterfaceTests {
  @Test("the IDL declares every method", arguments: Interface.Method.allCases)
  func description_declaresMethod(method: Interface.Method) {
    #expect(Interface.description.contains("method \(method.rawValue)("))
  }

  @Test func description_declaresEveryErrorOfTheInterface() {
    for error in ["NoSuchNotice", "InvalidArgument", "QueueFull"] {
      #expect(Interface.description.contains("error \(error) ("))
    }
    #expect(Interface.ErrorName.noSuchNotice == "\(Interface.name).NoSuchNotice")
    #expect(Interface.ErrorName.invalidArgument == "\(Interface.name).InvalidArgument")
    #expect(Interface.ErrorName.queueFull == "\(Interface.name).QueueFull")
  }

  @Test func description_namesTheInterfaceAndEveryEnumCase() {
    #expect(Interface.description.contains("interface io.notifyd.Queue\n"))
    for phase in Phase.allCases { #expect(Interface.description.contains(phase.rawValue)) }
    for outcome in Outcome.allCases { #expect(Interface.description.contains(outcome.rawValue)) }
    for kind in EventKind.allCases { #expect(Interface.description.contains(kind.rawValue)) }
    for easing in Easing.allCases { #expect(Interface.description.contains(easing.rawValue)) }
  }

  @Test func qualifiedName_prefixesTheInterface() {
    #expect(Interface.Method.wait.qualifiedName == "io.notifyd.Queue.Wait")
  }
}

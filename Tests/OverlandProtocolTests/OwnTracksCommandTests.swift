import OverlandJSON
import Testing
import OverlandProtocol

@Suite struct OwnTracksCommandTests {
    static func command(_ text: String) throws(OwnTracksCommandError) -> OwnTracksCommand {
        try OwnTracksCommand(payload: Array(text.utf8))
    }

    @Test func reportLocation() throws {
        #expect(try Self.command(#"{"_type":"cmd","action":"reportLocation"}"#) == .reportLocation)
        #expect(try Self.command(" {\"action\" : \"reportLocation\", \"_type\" : \"cmd\"}\n") == .reportLocation)
        let framed = Array(#"xx{"_type":"cmd","action":"reportLocation"}"#.utf8)
        #expect(try OwnTracksCommand.parse(framed[2...]) == .reportLocation)
    }

    @Test func setConfigurationCarriesTheObject() throws {
        let command = try Self.command(#"{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","locatorInterval":60,"monitoring":2}}"#)
        guard case .setConfiguration(let configuration) = command else {
            Issue.record("not setConfiguration: \(command)")
            return
        }
        #expect(configuration["locatorInterval"]?.int == 60)
        #expect(configuration["monitoring"]?.int == 2)
        #expect(try Self.command(#"{"_type":"cmd","action":"setConfiguration","configuration":{}}"#) == .setConfiguration(.object([:])))
    }

    @Test(arguments: ["dump", "waypoints", "setWaypoints", "clearWaypoints", "reportSteps", "action", "reboot", ""])
    func otherActionsAreUnsupported(_ action: String) throws {
        #expect(try Self.command(#"{"_type":"cmd","action":"\#(action)"}"#) == .unsupported(action))
    }

    @Test func unsupportedActionIsSafeToPrint() throws {
        let command = try Self.command(#"{"_type":"cmd","action":"\u001b[2J\u202Eevil\n"}"#)
        #expect(command == .unsupported("?[2J?evil?"))
        let long = try Self.command(#"{"_type":"cmd","action":"\#(String(repeating: "x", count: 5000))"}"#)
        #expect(long == .unsupported(String(repeating: "x", count: 64) + "..."))
    }

    @Test(arguments: [
        ("", "invalid json"),
        ("{", "invalid json"),
        ("{\"_type\":\"cmd\",\"action\":\"reportLocation\"} trailing", "invalid json"),
        ("\u{FF}\u{FE}", "invalid json"),
        (#"{"_type":"cmd","action":"\ud800"}"#, "invalid json"),
        (#"{"_type":"cmd","action":"\q"}"#, "invalid json"),
        (#"{"_type":"cmd","n":1e999}"#, "invalid json"),
        (#"{"_type":"cmd","n":-1e400}"#, "invalid json"),
        (#"{"_type":"cmd","n":NaN}"#, "invalid json"),
        ("\"reportLocation\"", "not a json object"),
        ("[]", "not a json object"),
        ("null", "not a json object"),
        (#"{"action":"reportLocation"}"#, "_type is missing"),
        (#"{"_type":"location","action":"reportLocation"}"#, "_type is \"location\""),
        (#"{"_type":7,"action":"reportLocation"}"#, "_type is a number"),
        (#"{"_type":["cmd"],"action":"reportLocation"}"#, "_type is an array"),
        (#"{"_type":"encrypted","data":"abc"}"#, "_type is \"encrypted\""),
        (#"{"_type":"cmd"}"#, "\"action\" is missing"),
        (#"{"_type":"cmd","action":1}"#, "\"action\" is missing"),
        (#"{"_type":"cmd","action":null}"#, "\"action\" is missing"),
        (#"{"_type":"cmd","action":{"a":1}}"#, "\"action\" is missing"),
        (#"{"_type":"cmd","action":"setConfiguration"}"#, "setConfiguration needs"),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":"locatorInterval=5"}"#, "setConfiguration needs"),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":[1]}"#, "setConfiguration needs"),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"waypoints"}}"#, "setConfiguration needs"),
    ])
    func hostilePayloadsGiveOneClearError(_ text: String, _ expected: String) {
        do {
            let command = try Self.command(text)
            Issue.record("accepted \(command)")
        } catch {
            #expect(error.description.hasPrefix("cmd: "))
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func deepNestingIsRefusedWithoutRecursion() {
        for depth in [9, 1000, 1_000_000] {
            let text = #"{"_type":"cmd","action":"setConfiguration","configuration":"# + String(repeating: "[", count: depth)
                + String(repeating: "]", count: depth) + "}"
            do {
                _ = try Self.command(text)
                Issue.record("accepted depth \(depth)")
            } catch {
                guard case .invalidJSON(let json) = error else {
                    Issue.record("wrong error \(error)")
                    continue
                }
                #expect(json.reason == .tooDeep(limit: OwnTracksCommand.limits.maxDepth)
                        || json.reason == .tooLarge(limit: OwnTracksCommand.limits.maxBytes))
            }
        }
    }

    @Test func hugePayloadsAndStringsAreRefused() {
        let big = #"{"_type":"cmd","action":"reportLocation","pad":""# + String(repeating: "a", count: 70_000) + #""}"#
        #expect(throws: OwnTracksCommandError.invalidJSON(JSONError(.tooLarge(limit: 65_536), at: 65_536))) {
            try Self.command(big)
        }
        let longString = #"{"_type":"cmd","action":""# + String(repeating: "a", count: 9000) + #""}"#
        do {
            _ = try Self.command(longString)
            Issue.record("accepted a 9000-byte string")
        } catch {
            #expect(error.description.contains("string longer than"))
        }
    }

    @Test func hugeNumbersAndWrongTypesInConfigurationAreKeptForTheSettingsToJudge() throws {
        let command = try Self.command(#"{"_type":"cmd","action":"setConfiguration","configuration":{"locatorInterval":1e308,"monitoring":"2","pubRetain":"yes"}}"#)
        guard case .setConfiguration(let configuration) = command else {
            Issue.record("not setConfiguration")
            return
        }
        #expect(configuration["locatorInterval"]?.double == 1e308)
        #expect(configuration["locatorInterval"]?.int == nil)
        #expect(configuration["monitoring"]?.string == "2")
    }

    @Test func escapesAreDecoded() throws {
        #expect(try Self.command(#"{"\u005ftype":"\u0063md","action":"report\u004cocation"}"#) == .reportLocation)
        #expect(try Self.command(#"{"_type":"cmd","action":"\ud83d\ude90"}"#) == .unsupported("🚐"))
    }

    @Test func randomBytesNeverCrash() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let seed = Array(#"{"_type":"cmd","action":"setConfiguration","configuration":{"a":[1,{"b":"\u00e9"}]}}"#.utf8)
        for _ in 0..<5000 {
            var bytes = seed
            for _ in 0..<3 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let index = Int(state >> 33) % bytes.count
                bytes[index] = UInt8(truncatingIfNeeded: state >> 17)
            }
            _ = try? OwnTracksCommand(payload: bytes)
        }
    }
}

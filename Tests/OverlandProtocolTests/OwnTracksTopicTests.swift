import Testing
import OverlandProtocol

@Suite struct OwnTracksTopicTests {
    @Test(arguments: ["owntracks/alice/van", "a", "home/trackers/van 1", "owntracks/jörg/büs", "x/y/z/w",
                      String(repeating: "a", count: OwnTracksTopic.maximumBytes)])
    func validTopicsAreKept(_ text: String) throws {
        let topic = try OwnTracksTopic(validating: text)
        #expect(topic.value == text)
        #expect(topic.command == text + "/cmd")
        #expect(topic.event == text + "/event")
        #expect(topic.waypoint == text + "/waypoint")
        #expect(topic.waypoints == text + "/waypoints")
        #expect(topic.info == text + "/info")
    }

    @Test(arguments: [
        ("", OwnTracksTopicError.empty),
        ("owntracks/+/van", .wildcard("+")),
        ("owntracks/#", .wildcard("#")),
        ("owntracks//van", .emptyLevel),
        ("/owntracks/van", .emptyLevel),
        ("owntracks/van/", .emptyLevel),
        ("/", .emptyLevel),
        ("owntracks/\u{0}van", .controlCharacter(0)),
        ("owntracks/\u{1B}[2Jvan", .controlCharacter(0x1B)),
        ("owntracks/\u{85}", .controlCharacter(0x85)),
        ("$SYS/broker", .reserved),
        ("owntracks/" + String(Character(Unicode.Scalar(UInt32(0xFFFF))!)), .noncharacter(0xFFFF)),
        ("owntracks/" + String(Character(Unicode.Scalar(UInt32(0xFDD0))!)), .noncharacter(0xFDD0)),
        ("owntracks/" + String(Character(Unicode.Scalar(UInt32(0x1FFFE))!)), .noncharacter(0x1FFFE)),
        (String(repeating: "é", count: 129), .tooLong(bytes: 258, limit: 256)),
        (String(repeating: "a", count: 65_536), .tooLong(bytes: 65_536, limit: 256)),
    ])
    func invalidTopicsAreRefused(_ text: String, _ expected: OwnTracksTopicError) {
        #expect(throws: expected) { try OwnTracksTopic(validating: text) }
    }

    @Test func errorsAreOneLineNamingTheRule() {
        let errors: [OwnTracksTopicError] = [.empty, .wildcard("+"), .emptyLevel, .controlCharacter(0), .reserved,
                                             .tooLong(bytes: 300, limit: 256)]
        for error in errors {
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasPrefix("invalid topic: "))
            #expect(error.description.contains("without '+', '#'"))
        }
        #expect(OwnTracksTopicError.controlCharacter(0).description.contains("U+0000"))
        #expect(OwnTracksTopicError.noncharacter(0xFFFE).description.contains("U+FFFE"))
    }

    @Test func defaultTopicFromUserAndDevice() {
        #expect(OwnTracksTopic(deviceID: "alice/van", username: nil).value == "owntracks/alice/van")
        #expect(OwnTracksTopic(deviceID: "alice/van", username: "bob").value == "owntracks/alice/van")
        #expect(OwnTracksTopic(deviceID: "Van", username: "Alice").value == "owntracks/alice/van")
        #expect(OwnTracksTopic(deviceID: "van", username: nil).value == "owntracks/user/van")
        #expect(OwnTracksTopic(deviceID: "", username: nil).value == "owntracks/user/device")
        #expect(OwnTracksTopic(deviceID: "/", username: "") .value == "owntracks/user/device")
    }

    @Test func defaultTopicIsSanitisedAndAlwaysValid() throws {
        #expect(OwnTracksTopic(deviceID: "My Van #2", username: "a+b").value == "owntracks/ab/myvan2")
        #expect(OwnTracksTopic(deviceID: "alice/van/rear", username: nil).value == "owntracks/alice/vanrear")
        #expect(OwnTracksTopic(deviceID: "Jörg/Büs", username: nil).value == "owntracks/jörg/büs")
        #expect(OwnTracksTopic(deviceID: "x/\u{1B}[31m\u{202E}", username: nil).value == "owntracks/x/31m")
        #expect(OwnTracksTopic(deviceID: "$sys/..", username: nil).value == "owntracks/sys/device")
        let long = OwnTracksTopic(deviceID: String(repeating: "é", count: 500) + "/" + String(repeating: "ü", count: 500),
                                  username: nil)
        #expect(long.value.utf8.count <= OwnTracksTopic.maximumBytes)
        let hostile = ["+/#", "\u{0}/\u{0}", "//", "$", "a//b", "🚐/🚐", "a.b/c_d-e"]
        for deviceID in hostile {
            let topic = OwnTracksTopic(deviceID: deviceID, username: "u")
            #expect(throws: Never.self) { try OwnTracksTopic(validating: topic.value) }
        }
    }
}

@Suite struct OwnTracksTopicFuzzTests {
    /// Random strings from a small hostile alphabet: whatever is accepted keeps every rule.
    @Test func acceptedTopicsKeepEveryRule() throws {
        let alphabet: [Unicode.Scalar] = ["a", "/", "+", "#", "$", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "é", "🚐", " ",
                                          Unicode.Scalar(UInt32(0xFFFE))!, Unicode.Scalar(UInt32(0xFDEF))!, "\u{202E}"]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var accepted = 0
        for _ in 0..<20_000 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            var text = String.UnicodeScalarView()
            for index in 0..<Int(state % 12) {
                text.append(alphabet[Int((state >> (UInt64(index) * 4 + 8)) % UInt64(alphabet.count))])
            }
            let candidate = String(text)
            guard let topic = try? OwnTracksTopic(validating: candidate) else { continue }
            accepted += 1
            #expect(topic.value == candidate)
            #expect(!topic.value.isEmpty && topic.value.utf8.count <= OwnTracksTopic.maximumBytes)
            #expect(!topic.value.contains("+") && !topic.value.contains("#") && !topic.value.hasPrefix("$"))
            let levels = topic.value.split(separator: "/", omittingEmptySubsequences: false)
            #expect(levels.allSatisfy { !$0.isEmpty })
            #expect(!topic.value.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value & 0xFFFE == 0xFFFE })
        }
        #expect(accepted > 100, "the alphabet must also produce valid topics")
    }
}

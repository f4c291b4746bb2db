import OverlandProtocol
import Testing

/// `ReceiverProfile`: what each profile changes in a stored line as it goes into a body.
@Suite struct ReceiverProfileTests {
    static func written(_ line: String, _ profile: ReceiverProfile) -> String {
        var body = RequestBodyWriter(profile: profile)
        body.appendLocation(Array(line.utf8))
        body.finish()
        return String(decoding: body.bytes, as: UTF8.self)
    }

    static let line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.4194155,37.7749295]},"properties":{"timestamp":"2024-01-01T00:00:00Z","altitude":12,"speed":4.25,"course":271,"horizontal_accuracy":5,"vertical_accuracy":8,"speed_accuracy":0.5,"course_accuracy":-1,"motion":["driving"],"battery_state":"unplugged","battery_level":0.83,"wifi":"speed 1.5","device_id":"van"}}"#

    @Test func noneWritesTheLineAsStored() {
        #expect(Self.written(Self.line, .none) == #"{"locations":["# + Self.line + "]}")
    }

    @Test func wayfinderWritesWholeNumbersAndLeavesTheRest() {
        let out = Self.written(Self.line, .wayfinder)
        #expect(out.contains(#""speed":4,"#), "\(out)")
        #expect(out.contains(#""speed_accuracy":1,"#), "0.5 rounds away from zero: \(out)")
        #expect(out.contains(#""course_accuracy":-1,"#), "unknown stays -1: \(out)")
        #expect(out.contains(#""coordinates":[-122.4194155,37.7749295]"#), "coordinates untouched: \(out)")
        #expect(out.contains(#""battery_level":0.83"#), "battery level is a fraction by definition: \(out)")
        #expect(out.contains(#""wifi":"speed 1.5""#), "strings untouched: \(out)")
    }

    @Test func wayfinderRoundsFractionalIntegersFromElsewhereAndKeepsUnknownMembers() {
        let line = #"{"type":"Feature","geometry":null,"properties":{"altitude":311.6,"course":1e2,"horizontal_accuracy":4.4,"extra":{"speed":2.5},"list":[1.5,{"speed":3.5}],"speed":-0.4,"vertical_accuracy":7.5}}"#
        let out = Self.written(line, .wayfinder)
        let expected = #"{"locations":[{"type":"Feature","geometry":null,"properties":{"altitude":312,"course":100,"horizontal_accuracy":4,"extra":{"speed":2.5},"list":[1.5,{"speed":3.5}],"speed":0,"vertical_accuracy":8}}]}"#
        #expect(out == expected)
    }

    @Test func currentIsWrittenForTheReceiverToo() {
        var body = RequestBodyWriter(profile: .wayfinder)
        body.appendLocation(Array(Self.line.utf8))
        body.finish(current: Array(Self.line.utf8)[...])
        let text = String(decoding: body.bytes, as: UTF8.self)
        #expect(!text.contains("4.25"), "\(text)")
    }

    @Test func compassTakesTheTokenInTheQueryString() {
        #expect(ReceiverProfile.compass.url("https://c.example/api/input", token: "a b&c") == "https://c.example/api/input?token=a%20b%26c")
        #expect(ReceiverProfile.compass.url("https://c.example/api/input?x=1#f", token: "t") == "https://c.example/api/input?x=1&token=t#f")
        #expect(ReceiverProfile.compass.url("https://c.example/api/input?token=mine", token: "t") == "https://c.example/api/input?token=mine")
        #expect(ReceiverProfile.compass.url("https://c.example/api/input", token: nil) == "https://c.example/api/input")
        #expect(ReceiverProfile.wayfinder.url("https://w.example/", token: "t") == "https://w.example/")
        #expect(Self.written(Self.line, .compass) == #"{"locations":["# + Self.line + "]}", "points as stored")
    }

    @Test func profilesByName() {
        #expect(ReceiverProfile(named: "wayfinder") == .wayfinder)
        #expect(ReceiverProfile(named: "none") == ReceiverProfile.none)
        #expect(ReceiverProfile(named: "Wayfinder") == nil)
    }

    @Test func theNewProfilesByName() {
        #expect(ReceiverProfile(named: "dawarich") == .dawarich)
        #expect(ReceiverProfile(named: "home-assistant") == .homeAssistant)
        #expect(ReceiverProfile(named: "owntracks-recorder") == .owntracksRecorder)
    }

    @Test func profilesFitTheirProtocolsAndRefuseTheOthersInOneLine() {
        #expect(WireProtocol.allCases.allSatisfy { ReceiverProfile.none.fits($0) })
        #expect(ReceiverProfile.wayfinder.fits(.overland) && !ReceiverProfile.wayfinder.fits(.traccar))
        #expect(ReceiverProfile.compass.fits(.overland) && !ReceiverProfile.compass.fits(.owntracks))
        #expect(ReceiverProfile.dawarich.fits(.overland) && ReceiverProfile.dawarich.fits(.owntracks) && !ReceiverProfile.dawarich.fits(.traccar))
        #expect(ReceiverProfile.homeAssistant.fits(.owntracks) && !ReceiverProfile.homeAssistant.fits(.overland))
        #expect(ReceiverProfile.owntracksRecorder.fits(.owntracks) && !ReceiverProfile.owntracksRecorder.fits(.traccar))
        #expect(ReceiverProfile.homeAssistant.refusal(for: .overland) == "profile home-assistant does not fit protocol overland: it is for protocol owntracks")
        #expect(ReceiverProfile.dawarich.refusal(for: .owntracks) == nil)
    }

    @Test(arguments: [
        ("https://c.example/api/input", "compass"),
        ("https://c.example/api/input/?x=1", "compass"),
        ("https://dawarich.example/api/v1/overland/batches?api_key=k", "dawarich"),
        ("https://dawarich.example/api/v1/owntracks/points", "dawarich"),
        ("https://ha.example:8123/api/webhook/0a1b2c3d", "home-assistant"),
        ("http://recorder.example:8083/pub", "owntracks-recorder"),
        ("https://wayfinder.example/api/wayfinder/overland/", "wayfinder"),
        ("https://wayfinder.example/api/wayfinder/overland", "wayfinder"),
        ("https://x.example/owntracks/pub?u=a&d=b", "owntracks-recorder"),
    ])
    func unambiguousPathsSuggestTheirProfile(url: String, expected: String) throws {
        let suggestion = try #require(ReceiverProfile.suggested(forURL: url))
        #expect(suggestion.profile.name == expected)
        #expect(!suggestion.reason.isEmpty)
    }

    @Test(arguments: [
        "https://x.example/overland", "https://x.example/api/locations", "https://x.example/owntracks",
        "https://x.example/api/webhook", "https://x.example/api/webhook/", "https://x.example/api/webhook/a/b",
        "https://x.example/publish", "https://x.example/", "https://x.example/api/v1/overland", "not a url",
    ])
    func ambiguousPathsSuggestNothing(url: String) {
        #expect(ReceiverProfile.suggested(forURL: url) == nil)
    }
}

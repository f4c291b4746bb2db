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
}

import Foundation
import OverlandJSON
import Testing
import TestSupport
@testable import OverlandProtocol

/// The MQTT sender reads a stored location line without a JSON tree
/// (`LocationFeature.readingLine`); what it publishes must be, byte for byte, what the
/// tree (`JSONParser` then `LocationFeature(json:)`) gave, for every line.
@Suite struct FeatureLineReaderTests {
    static let identity = OwnTracksIdentity(deviceID: "alice/van")
    static let topic = OwnTracksTopic(deviceID: "alice/van", username: nil)
    static let limits = JSONLimits(maxDepth: 8, maxBytes: 1 << 20, maxStringBytes: 64 << 10)

    /// Counts of the lines checked.
    struct Tally {
        var lines = 0
        var fast = 0
        var treeLocations = 0
    }

    /// Checks one line: the published bytes are the tree's, and the reader reads a
    /// location only where the tree does, the same one.
    static func check(_ line: [UInt8], _ tally: inout Tally) {
        tally.lines += 1
        let published = OwnTracksMessage.messages(forRecord: line[...], identity: identity, topic: topic)
        let tree = (try? JSONParser.parse(line, limits: limits)).flatMap { try? LocationFeature(json: $0) }
        let fast = LocationFeature.readingLine(line[...])
        if fast != nil { tally.fast += 1 }
        let text = String(decoding: line, as: UTF8.self)
        guard let tree else {
            #expect(fast == nil, "read a location the tree refuses: \(text)")
            return
        }
        tally.treeLocations += 1
        let expected = OwnTracksMessage.location(tree, identity: identity, topic: topic, retained: false)
        #expect(published == [expected], "published bytes differ: \(text)")
        if let fast { #expect(fast == tree, "a different point: \(text)") }
    }

    @Test func realLinesPublishTheTreesBytes() {
        var random = SplitMix(state: FuzzBudget.seed(0x34_0001))
        var tally = Tally()
        for index in 0..<3_000 {
            let point = Self.randomFeature(&random)
            Self.check(point.jsonLine(options: index % 3 == 0 ? .wayfinder : .standard), &tally)
            Self.check(point.jsonLine() + [0x0A], &tally)
        }
        #expect(tally.fast == tally.lines, "every line the logger writes takes the fast path")
        #expect(tally.treeLocations == tally.lines)
    }

    @Test func generatedLinesPublishTheTreesBytes() {
        var random = SplitMix(state: FuzzBudget.seed(0x34_0002))
        var tally = Tally()
        for _ in 0..<20_000 {
            var generator = LineGenerator(random: random)
            let line = generator.line()
            random = generator.random
            Self.check(Array(line.utf8), &tally)
        }
        // Both branches are exercised: the reader takes nearly every location the tree
        // reads (not a repeated geometry), and many lines are refused.
        #expect(tally.treeLocations > tally.lines / 5)
        #expect(tally.fast > tally.treeLocations * 9 / 10)
        #expect(tally.treeLocations > tally.fast)
        #expect(tally.lines - tally.treeLocations > tally.lines / 20)
    }

    @Test func oddLinesNamedOneByOne() {
        let base = #""geometry":{"type":"Point","coordinates":[-77.696315,45.490975]}"#
        let lines = [
            // Exponent numbers, escapes in values, an extra nested member, null members.
            #"{"type":"Feature",\#(base),"properties":{"timestamp":"2015-10-01T15:00:00Z","altitude":1.2e1,"speed":4.25E0,"horizontal_accuracy":5e0,"wifi":"caf\u00e9 \"x\"","device_id":"a\/b","extra":{"k":[1,{"z":null}]},"course":null}}"#,
            // Missing optional members; only a timestamp.
            #"{"type":"Feature",\#(base),"properties":{"timestamp":"2015-10-01T15:00:00Z"}}"#,
            // A key with an escape (the tree reads "wifi"), and a repeated property.
            #"{"type":"Feature",\#(base),"properties":{"timestamp":"2015-10-01T15:00:00Z","w\u0069fi":"home","speed":1,"speed":2.5}}"#,
            // Members in another order, whitespace, a third coordinate, unknown motion.
            #" { "properties" : { "motion" : [ "driving" , 3 , "flying" , ["walking"] ] , "timestamp" : "2015-10-01T15:00:00Z" } , "geometry" : { "coordinates" : [ 1e-1 , -2E+1 , 300 ] , "type" : "Point" } , "type" : "Feature" } "#,
            // Refused by the tree: a wrong type, an integer out of range, a repeated geometry, a visit.
            #"{"type":"Feature",\#(base),"properties":{"timestamp":"2015-10-01T15:00:00Z","altitude":"12"}}"#,
            #"{"type":"Feature",\#(base),"properties":{"timestamp":"2015-10-01T15:00:00Z","altitude":1e300}}"#,
            #"{"type":"Feature",\#(base),\#(base),"properties":{"timestamp":"2015-10-01T15:00:00Z"}}"#,
            #"{"type":"Feature",\#(base),"properties":{"type":"visit","timestamp":"2015-10-01T15:00:00Z"}}"#,
            #"{"type":"Feature",\#(base),"properties":{"timestamp":"2015-10-01T15:00:00Z"}} x"#,
        ]
        var tally = Tally()
        for line in lines { Self.check(Array(line.utf8), &tally) }
        #expect(tally.lines == 9)
        #expect(tally.treeLocations == 5)
        #expect(tally.fast == 4, "the repeated geometry goes through the tree")
    }

    static func randomFeature(_ random: inout SplitMix) -> LocationFeature {
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        let stats = random.next() % 3 == 0
            ? TrackingStats(pauses: random.next() % 2 == 0, activity: pick(["other", "fitness"]),
                            desiredAccuracy: Int(random.next() % 200), deferred: Int(random.next() % 5),
                            significantChange: pick(["disabled", "enabled"]), locationsInPayload: 1)
            : nil
        return LocationFeature(
            longitude: unit() * 360 - 180, latitude: unit() * 180 - 90, timestamp: Int64(random.next() % 4_000_000_000),
            altitude: Int(random.next() % 9_000) - 400, speed: pick([-1, unit() * 60, 0]),
            course: pick([-1, Int(random.next() % 360)]), horizontalAccuracy: pick([-1, 0, Int(random.next() % 100)]),
            verticalAccuracy: pick([-1, Int(random.next() % 50)]), speedAccuracy: pick([-1, unit() * 3]),
            courseAccuracy: pick([-1, unit() * 40]), motion: pick([[], [.driving], [.walking, .stationary]]),
            batteryState: pick(BatteryState.allCases), batteryLevel: pick([0, unit(), 1]),
            wifi: pick(["", "home", "Café \"Wi-Fi\" \\ 😀"]), deviceID: pick(["van", "alice/phone", ""]),
            uniqueID: pick([nil, "5B6E0C2A"]), tripID: pick([nil, "2023-12-05T16:50:25Z"]), trackingStats: stats)
    }
}

/// Writes Feature lines member by member, with the odd things a hand-edited or older
/// journal line may hold: members missing, null, repeated, of the wrong type or unknown;
/// escapes; numbers in exponent form; whitespace; another member order; damage.
struct LineGenerator {
    var random: SplitMix

    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    mutating func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }

    mutating func number(_ value: Double) -> String {
        switch random.next() % 5 {
        case 0: return String(format: "%.6e", value)
        case 1: return String(format: "%.3E", value)
        case 2: return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
        default: return "\(value)"
        }
    }

    /// A JSON string of `text`, some characters escaped.
    mutating func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where chance(50): out += "\\/"
            default:
                if scalar.value < 0x10000, chance(5) {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out += String(scalar)
                }
            }
        }
        return out + "\""
    }

    mutating func key(_ name: String) -> String {
        random.next() % 500 == 0 ? "\"\(name.prefix(1))\\u00\(String(name.utf8.dropFirst().first!, radix: 16))\(name.dropFirst(2))\"" : "\"\(name)\""
    }

    mutating func odd() -> String {
        pick(["null", "\"12\"", "true", "[1,2]", "{\"a\":{\"b\":[null]}}", "1e400", "-0", "0.5", "1e300"])
    }

    mutating func property(_ name: String) -> String {
        let value: String
        if chance(4) {
            value = odd()
        } else {
            switch name {
            case "timestamp":
                value = chance(2) ? string("yesterday") : string(ISO8601UTC.string(from: Int64(random.next() % 4_000_000_000)))
            case "motion":
                var words: [String] = []
                for _ in 0..<(random.next() % 4) {
                    words.append(pick([string("driving"), string("walking"), string("flying"), "3", "null", "[\"cycling\"]"]))
                }
                value = "[" + words.joined(separator: pick([",", " , "])) + "]"
            case "battery_state":
                value = string(pick(["unplugged", "charging", "full", "unknown", "weird"]))
            case "wifi", "device_id", "unique_id", "trip_id", "activity", "significant_change":
                value = string(pick(["", "home", "alice/phone", "Café \"Wi-Fi\" \\ 😀", "tab\there"]))
            case "pauses":
                value = pick(["true", "false"])
            default:
                value = number(pick([-1, 0, 12, unit() * 400 - 200, 0.5, 1.5, -2.5, 271]))
            }
        }
        return key(name) + pick([":", " : "]) + value
    }

    mutating func line() -> String {
        let names = ["timestamp", "altitude", "speed", "course", "horizontal_accuracy", "vertical_accuracy",
                     "speed_accuracy", "course_accuracy", "motion", "battery_state", "battery_level", "wifi",
                     "device_id", "unique_id", "trip_id", "pauses", "activity", "desired_accuracy", "deferred",
                     "significant_change", "locations_in_payload"]
        var properties: [String] = []
        for name in names where name == "timestamp" ? !chance(2) : chance(70) {
            properties.append(property(name))
            if chance(2) { properties.append(property(name)) }
        }
        if chance(10) { properties.append(key("extra") + ":" + odd()) }
        if chance(2) { properties.append(key(pick(["action", "type"])) + ":" + string("pause")) }
        if chance(20) { properties.shuffle(using: &random) }
        let coordinates = [number(unit() * 360 - 180), number(unit() * 180 - 90)] + (chance(10) ? [number(300)] : [])
        var geometry = [key("type") + ":" + string(chance(98) ? "Point" : "LineString"),
                        key("coordinates") + ":[" + coordinates.joined(separator: pick([",", ", "])) + "]"]
        if chance(20) { geometry.reverse() }
        var members = [key("type") + ":" + string(chance(98) ? "Feature" : "feature"),
                       key("geometry") + ":{" + geometry.joined(separator: ",") + "}",
                       key("properties") + ":{" + properties.joined(separator: pick([",", " ,\t"])) + "}"]
        if chance(5) { members.append(key("bbox") + ":" + odd()) }
        if chance(2) { members.append(members[1]) }
        if chance(20) { members.shuffle(using: &random) }
        var line = pick(["", " "]) + "{" + members.joined(separator: ",") + "}" + pick(["", "\n", " \r\n"])
        if chance(2) { line = String(line.prefix(Int(random.next() % UInt64(line.count + 1)))) }
        if chance(1) { line += "x" }
        return line
    }
}

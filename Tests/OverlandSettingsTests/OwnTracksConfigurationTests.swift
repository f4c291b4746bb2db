import TestSupport
import OverlandJSON
import Testing
@testable import OverlandSettings

@Suite("An OwnTracks setConfiguration")
struct OwnTracksConfigurationTests {
    func apply(_ text: String, to settings: inout Settings) throws -> OwnTracksConfigurationOutcome {
        applyOwnTracksConfiguration(try JSONParser.parse(text), to: &settings)
    }

    @Test func mappedKeysAreApplied() throws {
        var settings = Settings()
        let outcome = try apply("""
            {"_type":"configuration","locatorInterval":60,"locatorDisplacement":100,"monitoring":1,
             "locatorPriority":3,"pubRetain":true}
            """, to: &settings)
        #expect(outcome.warnings == [])
        #expect(outcome.publishRetained == true)
        #expect(settings.main.minTime == .oneMinute)
        #expect(settings.main.minDistance == .hundredMetres)
        #expect(settings.main.trackingMode == .significant)
        #expect(settings.main.desiredAccuracy == .best)
        #expect(outcome.changes.map(\.key).sorted() == ["desired_accuracy", "min_distance", "min_time", "tracking_mode"])
    }

    @Test(arguments: [(-1, TrackingMode.off), (0, .off), (1, .significant), (2, .standard)])
    func monitoringModes(_ mode: Int, _ expected: TrackingMode) throws {
        var settings = Settings()
        settings.main.trackingMode = .both
        let outcome = try apply(#"{"monitoring":\#(mode)}"#, to: &settings)
        #expect(outcome.warnings == [])
        #expect(settings.main.trackingMode == expected)
    }

    @Test(arguments: [(0, MinDistance.off), (1, .oneMetre), (10, .tenMetres), (50, .fiftyMetres), (500, .fiveHundredMetres)])
    func displacements(_ metres: Int, _ expected: MinDistance) throws {
        var settings = Settings()
        settings.main.minDistance = .hundredMetres
        _ = try apply(#"{"locatorDisplacement":\#(metres)}"#, to: &settings)
        #expect(settings.main.minDistance == expected)
    }

    @Test(arguments: [(1, MinTime.oneSecond), (5, .fiveSeconds), (10, .tenSeconds), (30, .thirtySeconds), (300, .fiveMinutes)])
    func intervals(_ seconds: Int, _ expected: MinTime) throws {
        var settings = Settings()
        _ = try apply(#"{"locatorInterval":\#(seconds)}"#, to: &settings)
        #expect(settings.main.minTime == expected)
    }

    @Test(arguments: [
        (#"{"locatorInterval":120}"#, "locatorInterval", "120"),
        (#"{"locatorInterval":"60"}"#, "locatorInterval", #""60""#),
        (#"{"locatorInterval":60.5}"#, "locatorInterval", "60.5"),
        (#"{"locatorInterval":1e308}"#, "locatorInterval", "1e+308"),
        (#"{"locatorInterval":-5}"#, "locatorInterval", "-5"),
        (#"{"locatorDisplacement":20}"#, "locatorDisplacement", "20"),
        (#"{"locatorDisplacement":true}"#, "locatorDisplacement", "true"),
        (#"{"monitoring":3}"#, "monitoring", "3"),
        (#"{"monitoring":"move"}"#, "monitoring", #""move""#),
        (#"{"locatorPriority":[3]}"#, "locatorPriority", "[3]"),
        (#"{"pubRetain":"yes"}"#, "pubRetain", #""yes""#),
        (#"{"_type":"waypoints"}"#, "_type", #""waypoints""#),
    ])
    func invalidValuesAreIgnoredWithOneWarning(_ text: String, _ key: String, _ value: String) throws {
        var settings = Settings()
        let outcome = try apply(text, to: &settings)
        #expect(outcome.changes == [])
        #expect(outcome.publishRetained == nil)
        #expect(outcome.warnings.count == 1)
        let warning = try #require(outcome.warnings.first)
        #expect(warning.key == key)
        guard case .invalidValue(let shown, _) = warning.reason else {
            Issue.record("not an invalid value: \(warning)")
            return
        }
        #expect(shown == value)
        #expect(warning.description.hasPrefix("setConfiguration: invalid value \(value) for \"\(key)\" ignored (allowed: "))
    }

    @Test func connectionIdentityAndSecretsAreRefusedWithoutShowingTheValue() throws {
        var settings = Settings()
        settings.endpoint = "https://example.org/overland"
        let before = settings
        let outcome = try apply("""
            {"host":"evil.example","port":1883,"url":"https://evil.example/","username":"mallory",
             "password":"hunter2-secret","deviceId":"x","tid":"zz","pubTopicBase":"owntracks/x/y","mode":3,
             "tls":false,"allowinvalidcerts":true,"endpoint":"https://evil.example","token":"hunter2-secret",
             "device_id":"x","clientId":"x","ca_file":"/tmp/x"}
            """, to: &settings)
        #expect(settings == before)
        #expect(outcome.changes == [])
        #expect(outcome.warnings.count == 16)
        #expect(outcome.warnings.allSatisfy { $0.reason == .refused })
        for warning in outcome.warnings {
            #expect(!warning.description.contains("hunter2"))
            #expect(!warning.description.contains("evil"))
            #expect(warning.description.hasSuffix("cannot be changed remotely; ignored"))
        }
    }

    @Test func unknownKeysGetOneWarningEach() throws {
        var settings = Settings()
        let outcome = try apply(#"{"ranging":true,"positions":50,"waypoints":[],"Password":"x","monitoring":2,"x\u001b[2J":1}"#,
                                to: &settings)
        #expect(settings.main.trackingMode == .standard)
        #expect(outcome.warnings.map(\.key) == ["Password", "positions", "ranging", "waypoints", "x\u{1B}[2J"])
        #expect(outcome.warnings.allSatisfy { $0.reason == .unknownKey })
        let hostile = try #require(outcome.warnings.last)
        #expect(hostile.description == #"setConfiguration: unknown key "x\u001b[2J" ignored"#)
    }

    @Test func aNonObjectIsOneWarning() {
        var settings = Settings()
        let outcome = applyOwnTracksConfiguration(.array([.number(1)]), to: &settings)
        #expect(outcome.changes == [] && outcome.warnings.count == 1)
        #expect(outcome.warnings.first?.description == "setConfiguration: invalid value [1] for \"configuration\" ignored (allowed: an object)")
    }

    @Test func longValuesAndKeysAreCutShort() throws {
        var settings = Settings()
        let key = String(repeating: "k", count: 5000)
        let outcome = try apply(#"{"\#(key)":1,"monitoring":"\#(String(repeating: "v", count: 5000))"}"#, to: &settings)
        #expect(outcome.warnings.count == 2)
        #expect(outcome.warnings.allSatisfy { $0.description.count < 300 })
    }

    @Test func nothingChangesWhenValuesAreTheSame() throws {
        var settings = Settings()
        settings.main.minTime = .oneMinute
        let outcome = try apply(#"{"locatorInterval":60}"#, to: &settings)
        #expect(outcome.changes == [] && outcome.warnings == [])
    }
}

@Suite("OwnTracks setConfiguration fuzz")
struct OwnTracksConfigurationFuzzTests {
    static let keys = ["locatorInterval", "locatorDisplacement", "monitoring", "locatorPriority", "pubRetain", "_type",
                       "password", "host", "endpoint", "token", "ranging", "waypoints", "x\u{1B}[2J", ""]
    static let values: [JSONValue] = [
        .null, .bool(true), .bool(false), .number(-1), .number(0), .number(1), .number(2), .number(3), .number(10),
        .number(60), .number(60.5), .number(1e308), .number(-1e308), .number(300), .number(500), .string(""),
        .string("60"), .string("1m"), .string("\u{0}"), .string(String(repeating: "v", count: 1000)),
        .array([.number(1)]), .object(["a": .number(1)]), .string("configuration"),
    ]

    /// Random objects: never a crash; every key is applied or gets exactly one warning; a
    /// refused key never changes anything and never shows its value.
    @Test func randomConfigurations() {
        var random = SplitMix(state: FuzzBudget.seed(0x0717_2AC5))
        _ = FuzzBudget.run(3000, seconds: FuzzBudget.seconds) { _ in
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                members[Self.keys.randomElement(using: &random)!] = Self.values.randomElement(using: &random)!
            }
            var settings = Settings()
            let before = settings
            let outcome = applyOwnTracksConfiguration(.object(members), to: &settings)
            #expect(outcome.warnings.count <= members.count)
            #expect(Set(outcome.warnings.map(\.key)).count == outcome.warnings.count)
            #expect(settings.endpoint == before.endpoint && settings.token == before.token)
            for warning in outcome.warnings where warning.reason == .refused {
                #expect(!warning.description.contains("vvvv"))
            }
            if outcome.changes.isEmpty { #expect(settings == before) }
        }
    }
}

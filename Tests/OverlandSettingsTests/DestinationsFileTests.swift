import TestSupport
import Foundation
import Testing
@testable import OverlandSettings

#if canImport(Glibc)
import Glibc
#endif

@Suite("destinations.json")
struct DestinationsFileTests {
    static func sample() -> [Destination] {
        var traccar = Destination(name: "traccar", url: "http://127.0.0.1:5055", wireProtocol: .traccar)
        traccar.deviceID = "123456"
        traccar.sendInterval = .oneMinute
        var wayfinder = Destination(name: "wayfinder", url: "https://w.example/overland")
        wayfinder.profile = .wayfinder
        wayfinder.token = "sekrit \"token\""
        wayfinder.batchSize = .fiveHundred
        var broker = Destination(name: "ha-mqtt", url: "mqtts://broker.example:8883", wireProtocol: .mqtt)
        broker.topic = "owntracks/alice/van"
        broker.username = "alice"
        broker.discovery = true
        broker.keepalive = 30
        broker.protocolVersion = .v5
        return [broker, traccar, wayfinder]
    }

    @Test func roundTripIsByteStable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/conf/destinations.json"
        _ = try DestinationsFile.update(path: path) { $0 = Self.sample() }
        let first = try directory.read("conf/destinations.json")
        #expect(try DestinationsFile.load(path: path) == Self.sample())
        #expect(Array(first.utf8) == DestinationsFile.encode(Self.sample()))
        // Mode 0600 inside a 0700 directory it created.
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(directory.path + "/conf", &info) == 0 && info.st_mode & 0o777 == 0o700)
        // Only the keys each protocol takes are written.
        #expect(!first.contains("\"topic\": null"))
        #expect(first.contains("\"topic\": \"owntracks/alice/van\""))
    }

    @Test func missingFileIsNoDestinations() throws {
        let directory = try TemporaryDirectory()
        #expect(try DestinationsFile.load(path: directory.path + "/destinations.json").isEmpty)
    }

    @Test func pathIsBesideTheSettingsFile() {
        #expect(DestinationsFile.path(settingsPath: "/etc/overland/settings.json") == "/etc/overland/destinations.json")
        #expect(DestinationsFile.path(settingsPath: "/settings.json") == "/destinations.json")
    }

    static let refusals: [(text: String, line: Int, fragment: String)] = [
        ("{\"version\": 1, \"destinations\": {\"a\": {\"url\": \"http://x\", \"topic\": \"t\"}}}", 1, "does not apply to protocol overland"),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"a\": {\n\"url\": \"http://x\",\n\"batch_size\": 7\n}}}", 6, "batch_size"),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"Bad Name\": {\"url\": \"http://x\"}}}", 4, "Bad Name"),
        ("{\n\"version\": 2,\n\"destinations\": {}}", 2, "version 2"),
        ("{\"destinations\": {}}", 1, "no \"version\""),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"a\": {\n\"url\": \"mqtt://x\"}}}", 5, "a.url"),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"a\": {\n\"protocol\": \"mqtt\",\n\"url\": \"http://x\"}}}", 6, "a.url"),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"a\": {\n\"url\": \"http://x\",\n\"colour\": 1}}}", 6, "unknown key \"colour\""),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"a\": {\n\"url\": \"http://x\",\n\"url\": \"http://y\"}}}", 6, "appears twice"),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"a\": {\n\"token\": \"t\"}}}", 4, "has no url"),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"default\": {\"url\": \"http://x\"}}}", 4, "settings file's destination"),
        ("{\n\"version\": 1,\n\"destinations\": {\n\"a\": {\n\"url\": \"http://x\",\n", 6, "not valid json"),
    ]

    @Test(arguments: refusals.indices)
    func damagedFileIsAnErrorNamingFileAndLine(index: Int) throws {
        let refusal = Self.refusals[index]
        let directory = try TemporaryDirectory()
        let path = try directory.write("destinations.json", refusal.text)
        do {
            _ = try DestinationsFile.load(path: path)
            Issue.record("accepted: \(refusal.text)")
        } catch {
            #expect(error.description.contains("'\(path)' line \(refusal.line)"), "\(error)")
            #expect(error.description.contains(refusal.fragment), "\(error)")
        }
        // An update never overwrites a file it cannot read.
        #expect(throws: SettingsError.self) { try DestinationsFile.update(path: path) { $0 = [] } }
        #expect(try directory.read("destinations.json") == refusal.text)
    }

    @Test func setChecksKeysAgainstTheProtocol() throws {
        var destination = Destination(name: "t", url: "http://127.0.0.1:5055", wireProtocol: .traccar)
        #expect(throws: SettingsError.self) { try DestinationKey(named: "batch_size").set("500", in: &destination, settings: Settings()) }
        #expect(throws: SettingsError.self) { try DestinationKey(named: "send_interval").set("7m", in: &destination, settings: Settings()) }
        #expect(throws: SettingsError.self) { try DestinationKey(named: "protocol").set("mqtt", in: &destination, settings: Settings()) }
        #expect(throws: SettingsError.self) { try DestinationKey(named: "colour") }
        try DestinationKey(named: "send_interval").set("60", in: &destination, settings: Settings())
        #expect(destination.sendInterval == .oneMinute)
        try DestinationKey(named: "protocol").set("overland", in: &destination, settings: Settings())
        try DestinationKey(named: "batch_size").set("500", in: &destination, settings: Settings())
        #expect(destination.batchSize == .fiveHundred)
        // Back to traccar: the overland-only key returns to its default.
        try DestinationKey(named: "protocol").set("traccar", in: &destination, settings: Settings())
        #expect(destination.batchSize == .twoHundred)
    }

    @Test func namesAreFATSafeCursorNames() {
        for name in ["a", "traccar", "home-assistant", "x_1", "0", String(repeating: "a", count: 32)] {
            #expect(Destination.isValidName(name), "\(name)")
        }
        for name in ["", "-a", "_a", "A", "a b", "a/b", "a.b", String(repeating: "a", count: 33), "é"] {
            #expect(!Destination.isValidName(name), "\(name)")
        }
    }

    @Test func differencesNeverShowTheToken() {
        let old = Destination(name: "w", url: "https://user:pw@w.example/in?token=abc")
        var new = old
        new.token = "supersecret"
        new.url = "https://w.example/other"
        let lines = new.differences(from: old).map(\.description)
        #expect(lines == ["w.url: https://user:<redacted>@w.example/in?token=<redacted> -> https://w.example/other", "w.token: not set -> set"])
    }
}

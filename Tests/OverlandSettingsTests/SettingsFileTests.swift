import TestSupport
import Foundation
import OverlandProtocol
import Testing
@testable import OverlandSettings

#if canImport(Glibc)
import Glibc
#endif

@Suite("The settings file")
struct SettingsFileTests {
    static func sample() -> Settings {
        var settings = Settings()
        settings.endpoint = "https://example.com/api?ts=%TS&lat=%LAT"
        settings.token = "sekrit \"quoted\" token"
        settings.deviceID = "van"
        settings.sendInterval = .oneMinute
        settings.tripMode = .bicycle
        settings.wifiZone = WifiZone(ssid: "home, sweet home", latitude: 52.0907, longitude: -5.1214)
        settings.main.batchSize = .fiveHundred
        settings.main.trackingMode = .both
        settings.trip.minDistance = .fiftyMetres
        settings.trip.preventScreenLock = true
        settings.journal = "/var/lib/overland/journal"
        settings.commitInterval = 0.25
        settings.retentionDays = 0
        settings.integerSpeed = true
        return settings
    }

    @Test func roundTripIsByteStable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/settings.json"
        let settings = Self.sample()
        try SettingsFile.save(settings, to: path)
        let first = try directory.read("settings.json")
        let loaded = try SettingsFile.load(path: path)
        #expect(loaded == settings)
        try SettingsFile.save(loaded, to: path)
        #expect(try directory.read("settings.json") == first)
        #expect(try SettingsFile.load(path: path) == settings)
    }

    @Test func defaultsRoundTrip() throws {
        let bytes = SettingsFile.encode(Settings())
        #expect(try SettingsFile.decode(bytes, path: "x") == Settings())
    }

    @Test func fileIsPrettyPrintedWithEveryKey() {
        let text = String(decoding: SettingsFile.encode(Settings()), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "{")
        #expect(lines.dropLast().last == "}")
        #expect(lines.last == "")
        #expect(lines.contains("  \"send_interval\": \"5m\","))
        #expect(lines.contains("  \"wifi_zone\": null,"))
        #expect(lines.contains("  \"main\": {"))
        #expect(lines.contains("    \"batch_size\": 200,"))
        #expect(lines.contains("    \"min_time\": \"1s\""))
        #expect(lines.contains("  \"trip\": {"))
        #expect(lines.contains("    \"prevent_screen_lock\": false,"))
        #expect(lines.contains("  \"commit_interval\": 5,"))
        #expect(lines.contains("  \"battery_path\": null"))
        // One key per line: 23 top-level keys, "main" (11 keys) and "trip" (8 keys) with
        // their closing braces, the outer braces, and the final newline.
        #expect(lines.count == 23 + (1 + 11 + 1) + (1 + 8 + 1) + 2 + 1)
    }

    @Test func filePermissions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/config/overland/settings.json"
        let old = umask(0o022)
        defer { umask(old) }
        try SettingsFile.save(Settings(), to: path)
        #expect(mode(of: path) == 0o600)
        #expect(mode(of: directory.path + "/config/overland") == 0o700)
        #expect(mode(of: directory.path + "/config") == 0o700)
        // An existing file with a looser mode is tightened on save.
        chmod(path, 0o644)
        try SettingsFile.save(Settings(), to: path)
        #expect(mode(of: path) == 0o600)
        // No temporary file is left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/config/overland")
        #expect(names == ["settings.json"])
    }

    @Test func savingThroughASymlinkReplacesItsTarget() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/dotfiles", withIntermediateDirectories: true)
        symlink("dotfiles/settings.json", directory.path + "/settings.json")
        var settings = Settings()
        settings.deviceID = "linked"
        try SettingsFile.save(settings, to: directory.path + "/settings.json")
        var info = stat()
        lstat(directory.path + "/settings.json", &info)
        #expect(info.st_mode & S_IFMT == S_IFLNK)
        #expect(try SettingsFile.load(path: directory.path + "/dotfiles/settings.json").deviceID == "linked")
    }

    @Test func missingFileMeansDefaults() throws {
        let directory = try TemporaryDirectory()
        #expect(try SettingsFile.load(path: directory.path + "/nothing/settings.json") == Settings())
    }

    @Test func partialFileKeepsDefaultsForTheRest() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("settings.json", #"{"main": {"batch_size": 500}, "device_id": "van"}"#)
        var expected = Settings()
        expected.main.batchSize = .fiveHundred
        expected.deviceID = "van"
        #expect(try SettingsFile.load(path: path) == expected)
    }

    @Test func syntaxErrorNamesTheLine() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("settings.json", """
            {
              "send_interval": "5m",
              "token": "abc" oops,
              "device_id": "van"
            }
            """)
        let error = try #require(settingsError { _ = try SettingsFile.load(path: path) })
        guard case .malformed(let errorPath, let line, let column, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(errorPath == path)
        #expect(line == 3)
        #expect(column == 18)
        #expect(error.description == "'\(path)' line 3 column 18: not valid json: unexpected character 'o'")
        #expect(error.category == .configuration)
        // The file is left as it was.
        #expect(try directory.read("settings.json").contains("oops"))
    }

    @Test func truncatedFileNamesItsLastLine() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("settings.json", "{\n  \"main\": {\n    \"batch_size\": 500\n\n\n")
        let error = try #require(settingsError { _ = try SettingsFile.load(path: path) })
        guard case .malformed(_, let line, _, let reason) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(line == 3)
        #expect(reason.contains("unexpected end of file"))
    }

    @Test func unknownKeyNamesTheLineAndTheAllowedKeys() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("settings.json", """
            {
              "send_interval": "5m",
              "main": {
                "logging_mode": "all",
                "batchsize": 500
              }
            }
            """)
        let error = try #require(settingsError { _ = try SettingsFile.load(path: path) })
        guard case .unknownKey(let key, let section, let suggestions, let allowed, let location) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(key == "batchsize")
        #expect(section == "main")
        #expect(suggestions == ["batch_size"])
        #expect(allowed.contains("tracking_mode") && allowed.contains("batch_size"))
        #expect(location == SettingsLocation(path: path, line: 5))
        #expect(error.description.hasPrefix(
            "'\(path)' line 5: unknown key \"batchsize\" in \"main\"; did you mean \"batch_size\"? (allowed: tracking_mode, "))
    }

    @Test func mainOnlyKeyIsUnknownInTheTripProfile() throws {
        let error = try #require(settingsError {
            _ = try SettingsFile.decode(Array("{\n\"trip\": {\n\"tracking_mode\": \"off\"}}".utf8), path: "s.json")
        })
        guard case .unknownKey(let key, let section, _, let allowed, let location) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(key == "tracking_mode" && section == "trip" && location?.line == 3)
        #expect(allowed.contains("prevent_screen_lock"))
    }

    @Test func unknownTopLevelKey() throws {
        let error = try #require(settingsError {
            _ = try SettingsFile.decode(Array("{\"endpoint\": null,\n \"sendinterval\": \"5m\"}".utf8), path: "s.json")
        })
        #expect(error.description.hasPrefix("'s.json' line 2: unknown key \"sendinterval\"; did you mean \"send_interval\"? (allowed: endpoint, "))
    }

    @Test func badValueNamesTheLineTheValueAndTheAllowedValues() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("settings.json", """
            {
              "send_interval": "5m",
              "device_id": "van",
              "main": {
                "logging_mode": "all",
                "min_distance": "off",
                "batch_size": 300
              }
            }
            """)
        let error = try #require(settingsError { _ = try SettingsFile.load(path: path) })
        #expect(error == .invalidValue(
            key: "main.batch_size", value: "300", allowed: "50, 100, 200, 500, 1000",
            location: SettingsLocation(path: path, line: 7)))
        #expect(error.description
            == "'\(path)' line 7: invalid value 300 for \"main.batch_size\" (allowed: 50, 100, 200, 500, 1000)")
    }

    @Test(arguments: [
        (#"{"send_interval": 7}"#, "send_interval", "7"),
        (#"{"send_interval": "7s"}"#, "send_interval", #""7s""#),
        (#"{"main": {"min_time": "2s"}}"#, "main.min_time", #""2s""#),
        (#"{"main": {"min_time": -5}}"#, "main.min_time", "-5"),
        (#"{"commit_interval": "2h"}"#, "commit_interval", #""2h""#),
        (#"{"commit_interval": "5 s"}"#, "commit_interval", #""5 s""#),
        (#"{"commit_interval": -1}"#, "commit_interval", "-1"),
        (#"{"main": {"batch_size": "500"}}"#, "main.batch_size", #""500""#),
        (#"{"tracking_enabled": "yes"}"#, "tracking_enabled", #""yes""#),
        (#"{"endpoint": "ftp://example.com"}"#, "endpoint", #""ftp://example.com""#),
        (#"{"token": ""}"#, "token", #""""#),
        (#"{"device_id": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#, "device_id", #""aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa""#),
        (#"{"commit_interval": 3601}"#, "commit_interval", "3601"),
        (#"{"retention_days": 1.5}"#, "retention_days", "1.5"),
        (#"{"journal": "relative/path"}"#, "journal", #""relative/path""#),
        (#"{"main": 5}"#, "main", "5"),
        (#"{"trip": {"prevent_screen_lock": null}}"#, "trip.prevent_screen_lock", "null"),
        (#"{"wifi_zone": {"ssid": "home", "latitude": 91, "longitude": 0}}"#, "wifi_zone.latitude", "91"),
        (#"{"wifi_zone": {"ssid": "home", "latitude": 50}}"#, "wifi_zone", #"{"latitude":50,"ssid":"home"}"#),
    ])
    func wrongTypesAndValuesAreRefused(text: String, key: String, value: String) throws {
        let error = try #require(settingsError { _ = try SettingsFile.decode(Array(text.utf8), path: "s.json") })
        guard case .invalidValue(let errorKey, let errorValue, let allowed, let location) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(errorKey == key)
        #expect(errorValue == value)
        #expect(!allowed.isEmpty)
        #expect(location?.line == 1)
    }

    @Test func unknownKeyInsideTheWifiZone() throws {
        let error = try #require(settingsError {
            _ = try SettingsFile.decode(Array(#"{"wifi_zone": {"ssid": "home", "lat": 1, "longitude": 2}}"#.utf8), path: "s.json")
        })
        guard case .unknownKey(let key, let section, _, _, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(key == "lat" && section == "wifi_zone")
    }

    @Test func repeatedKeyIsRefused() throws {
        let error = try #require(settingsError {
            _ = try SettingsFile.decode(Array("{\n\"main\": {\"batch_size\": 100,\n\"batch_size\": 500}}".utf8), path: "s.json")
        })
        #expect(error == .malformed(path: "s.json", line: 3, column: nil, reason: "key \"main.batch_size\" appears twice (also on line 2)"))
    }

    @Test func firstMistakeInTheFileIsReported() throws {
        let text = "{\n\"trip_mode\": \"hovercraft\",\n\"send_interval\": \"2h\"\n}"
        let error = try #require(settingsError { _ = try SettingsFile.decode(Array(text.utf8), path: "s.json") })
        guard case .invalidValue(let key, _, _, let location) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(key == "trip_mode" && location?.line == 2)
    }

    @Test func emptyFileAndNonObjectAreErrors() throws {
        let empty = try #require(settingsError { _ = try SettingsFile.decode(Array("\n".utf8), path: "s.json") })
        #expect(empty.description.contains("the file is empty"))
        let array = try #require(settingsError { _ = try SettingsFile.decode(Array("[]".utf8), path: "s.json") })
        #expect(array.description.contains("not a json object"))
    }

    @Test func unreadableFileIsAnIOErrorAndNotReset() throws {
        let directory = try TemporaryDirectory()
        // A directory where the file should be: root can read any file, but not this one.
        try FileManager.default.createDirectory(atPath: directory.path + "/settings.json", withIntermediateDirectories: false)
        let error = try #require(settingsError { _ = try SettingsFile.load(path: directory.path + "/settings.json") })
        #expect(error.category == .io)
        #expect(error.errno == EISDIR)
        #expect(error.description == "cannot read '\(directory.path)/settings.json': is a directory"
            || error.description.hasPrefix("cannot read '\(directory.path)/settings.json': "))
    }

    @Test func saveFailureIsAnIOError() throws {
        let directory = try TemporaryDirectory()
        try directory.write("file", "x")
        let error = try #require(settingsError { try SettingsFile.save(Settings(), to: directory.path + "/file/settings.json") })
        #expect(error.category == .io)
    }

    @Test func paths() {
        #expect(SettingsFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"])
            == "/xdg/overland/settings.json")
        #expect(SettingsFile.defaultPath(environment: ["HOME": "/home/u"]) == "/home/u/.config/overland/settings.json")
        #expect(SettingsFile.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"])
            == "/home/u/.config/overland/settings.json")
        let environment = ["OVERLAND_CONFIG": "/etc/overland.json", "HOME": "/home/u"]
        #expect(SettingsFile.resolvePath(flag: "/flag.json", environment: environment) == "/flag.json")
        #expect(SettingsFile.resolvePath(flag: nil, environment: environment) == "/etc/overland.json")
        #expect(SettingsFile.resolvePath(flag: nil, environment: ["OVERLAND_CONFIG": "", "HOME": "/h"])
            == "/h/.config/overland/settings.json")
    }
}


/// `SettingsFile.update` loads, edits and saves under the file's lock: two writers at once
/// (a `config set` and a sync saving a server's `set`) never lose each other's change.
@Suite struct SettingsFileUpdateTests {
    @Test func concurrentUpdatesLoseNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/config/overland/settings.json"
        let rounds = 60
        // Each update depends on what the last one saved: a lost update shows as a short value.
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for _ in 0..<rounds {
                _ = try? SettingsFile.update(path: path) { settings in
                    if writer == 0 {
                        settings.token = (settings.token ?? "") + "t"
                    } else {
                        settings.journal = (settings.journal ?? "/j") + "j"
                    }
                }
            }
        }
        let settings = try SettingsFile.load(path: path)
        #expect(settings.token?.count == rounds)
        #expect(settings.journal?.count == 2 + rounds)
        #expect(mode(of: path + ".lock") == 0o600)
    }

    @Test func aRefusedChangeSavesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/settings.json"
        try SettingsFile.save(SettingsFileTests.sample(), to: path)
        let before = try directory.read("settings.json")
        #expect(throws: TestFailure.self) {
            _ = try SettingsFile.update(path: path) { settings in
                settings.deviceID = "changed"
                throw TestFailure("refused")
            }
        }
        #expect(try directory.read("settings.json") == before)
    }
}

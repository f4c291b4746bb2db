import TestSupport
import Testing
import OverlandJournal
@testable import OverlandSettings

/// `SettingsFile.change`: every change a command makes to the settings file.
@Suite("SettingsFile.change")
struct SettingsChangeTests {
    @Test func savesWhatChangedAndSaysIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("settings.json")
        let (settings, changes) = try SettingsFile.change(path: path, by: "a test", now: 1_000) { settings throws(SettingsError) in
            try SettingKey(named: "batch_size").set("500", in: &settings)
        }
        #expect(changes.map(\.key) == ["batch_size"])
        #expect(try SettingsFile.load(path: path) == settings)
        // The same change again changes nothing.
        let again = try SettingsFile.change(path: path, by: "a test", now: 1_001) { settings throws(SettingsError) in
            try SettingKey(named: "batch_size").set("500", in: &settings)
        }
        #expect(again.changes.isEmpty)
    }

    @Test func recordsTrackingGoingOff() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("settings.json")
        let (settings, _) = try SettingsFile.change(path: path, by: "a test", now: 1_000) { settings throws(SettingsError) in
            try SettingKey(named: "tracking_mode").set("off", in: &settings)
        }
        let record = try #require(TrackingChange.load(settingsPath: path, matching: settings))
        #expect(record.off && record.since == 1_000 && record.by == "a test")
    }

    @Test func aValueRefusedIsARefusalAndSavesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("settings.json")
        let refusal = #expect(throws: SettingsChangeRefusal.self) {
            try SettingsFile.change(path: path, by: "a test", now: 1_000) { settings throws(SettingsError) in
                try SettingKey(named: "batch_size").set("lots", in: &settings)
            }
        }
        guard case .value(.invalidValue(let key, let value, _, _)) = try #require(refusal) else {
            Issue.record("not the value refused: \(String(describing: refusal))")
            return
        }
        #expect(key == "batch_size" && value.contains("lots"))
        #expect(PrivateFile.kind(path) == .missing)
    }

    @Test func aMalformedFileIsASettingsErrorAndIsNeverOverwritten() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("settings.json")
        _ = try directory.write("settings.json", "{\"batch_size\": ")
        var ran = false
        #expect(throws: SettingsError.self) {
            try SettingsFile.change(path: path, by: "a test", now: 1_000) { _ in ran = true }
        }
        #expect(!ran)
        #expect(try directory.read("settings.json") == "{\"batch_size\": ")
    }
}

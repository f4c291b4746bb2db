import OverlandJournal
import OverlandProtocol
@testable import OverlandSettings
import OverlandSimulation
import Testing

/// The settings, the destinations and `tracking.json` are written by the journal's rules
/// (`FileSystem.replaceAtomically`, `makeDirectories` with its parent's fsync) through the
/// `FileSystem` seam, and read back through it: on a simulated disk, every crash image after
/// a save holds the new file whole, its directories included, and a change reads what the
/// disk holds.
@Suite struct SettingsDurabilityTests {
    static let path = "/home/me/.config/overland/settings.json"

    /// Every crash image `disk` can leave, by `seeds` seeds.
    static func crashImages(of disk: SimulatedDisk, seeds: Range<UInt64> = 0..<40) -> [SimulatedDisk] {
        var random = SeededRandom(seed: 0)
        _ = disk.cutPowerNow(using: &random)
        return seeds.map { seed in
            var random = SeededRandom(seed: seed)
            return disk.crashImage(using: &random)
        }
    }

    @Test func aSavedSettingsFileSurvivesEveryPowerCutWithItsNewDirectories() throws {
        let disk = SimulatedDisk()
        var settings = Settings()
        settings.endpoint = "https://example.org/overland"
        settings.deviceID = "alice/van"
        try SettingsFile.save(settings, to: Self.path, fileSystem: disk)
        let bytes = SettingsFile.encode(settings)
        for image in Self.crashImages(of: disk) {
            #expect(try image.readFile(Self.path, limit: 1 << 20) == bytes)
        }
    }

    @Test func anUpdatedDestinationsFileSurvivesEveryPowerCut() throws {
        let disk = SimulatedDisk()
        let path = DestinationsFile.path(settingsPath: Self.path)
        var traccar = Destination(name: "traccar", url: "http://127.0.0.1:5055", wireProtocol: .traccar)
        traccar.deviceID = "van-42"
        _ = try DestinationsFile.update(path: path, fileSystem: disk) { $0.append(traccar) }
        let bytes = DestinationsFile.encode([traccar])
        for image in Self.crashImages(of: disk) {
            #expect(try image.readFile(path, limit: 1 << 20) == bytes)
        }
    }

    @Test func aTrackingChangeIsWrittenThroughTheSeam() throws {
        let disk = SimulatedDisk()
        try disk.makeDirectories("/home/me/.config/overland")
        var off = Settings()
        off.trackingEnabled = false
        #expect(TrackingChange.recordIfChanged(from: Settings(), to: off, by: "a test", now: 1_700_000_000,
                                               settingsPath: Self.path, fileSystem: disk))
        let written = try disk.readFile(TrackingChange.path(settingsPath: Self.path), limit: 4096)
        #expect(String(decoding: written, as: UTF8.self).contains(#""tracking":"off""#))
    }

    /// An update reads the file it changes through the seam: a key saved before survives a
    /// change of another (when reading went to the real disk, which holds no such file, the
    /// update started from the defaults and lost the endpoint and the device id).
    @Test func anUpdateReadsTheSettingsItChangesThroughTheSeam() throws {
        let disk = SimulatedDisk()
        var settings = Settings()
        settings.endpoint = "https://example.org/overland"
        settings.deviceID = "alice/van"
        try SettingsFile.save(settings, to: Self.path, fileSystem: disk)
        let (old, new) = try SettingsFile.update(path: Self.path, fileSystem: disk) { $0.trackingEnabled = false }
        #expect(old == settings)
        #expect(new.endpoint == "https://example.org/overland" && new.deviceID == "alice/van" && !new.trackingEnabled)
        #expect(try SettingsFile.load(path: Self.path, fileSystem: disk) == new)
        #expect(SettingsFile.loadTolerating(path: Self.path, fileSystem: disk).settings == new)
        #expect(try SettingsFile.load(path: Self.path, fileSystem: SimulatedDisk()) == Settings(), "another disk holds no file")
    }

    /// A second destination added keeps the first: the update reads destinations.json
    /// through the seam.
    @Test func aSecondDestinationKeepsTheFirst() throws {
        let disk = SimulatedDisk()
        let path = DestinationsFile.path(settingsPath: Self.path)
        let traccar = Destination(name: "traccar", url: "http://127.0.0.1:5055", wireProtocol: .traccar)
        let home = Destination(name: "home", url: "https://home.example/overland")
        _ = try DestinationsFile.update(path: path, fileSystem: disk) { $0.append(traccar) }
        let (old, new) = try DestinationsFile.update(path: path, fileSystem: disk) { $0.append(home) }
        #expect(old == [traccar])
        #expect(new == [home, traccar])
        #expect(try DestinationsFile.load(path: path, fileSystem: disk) == [home, traccar])
    }

    /// A torn or oversized file read through the seam is refused as from the real disk: one
    /// error naming the file; a directory in its place too.
    @Test func aFileThatDoesNotReadIsRefusedThroughTheSeam() throws {
        let disk = SimulatedDisk()
        try disk.makeDirectories("/home/me/.config/overland")
        try disk.replaceAtomically(Self.path, with: Array(#"{"device_id": "a"#.utf8))
        #expect(throws: SettingsError.self) { try SettingsFile.load(path: Self.path, fileSystem: disk) }
        try disk.replaceAtomically(Self.path, with: Array(repeating: UInt8(ascii: " "), count: SettingsFile.maximumSize + 1))
        let large = try #require(throws: SettingsError.self) { try SettingsFile.load(path: Self.path, fileSystem: disk) }
        #expect(large.description.contains("larger than \(SettingsFile.maximumSize) bytes: not a settings file"), "\(large)")
        try disk.makeDirectory("/home/me/.config/overland/destinations.json")
        let directory = try #require(throws: SettingsError.self) {
            try DestinationsFile.load(path: DestinationsFile.path(settingsPath: Self.path), fileSystem: disk)
        }
        #expect(directory.description.contains("is a directory"), "\(directory)")
    }

    /// `tracking.json` is read through the seam too.
    @Test func aTrackingChangeIsReadThroughTheSeam() throws {
        let disk = SimulatedDisk()
        try disk.makeDirectories("/home/me/.config/overland")
        var off = Settings()
        off.trackingEnabled = false
        TrackingChange.recordIfChanged(from: Settings(), to: off, by: "a test", now: 1_700_000_000, settingsPath: Self.path, fileSystem: disk)
        let change = try #require(TrackingChange.load(settingsPath: Self.path, matching: off, fileSystem: disk))
        #expect(change == TrackingChange(off: true, since: 1_700_000_000, by: "a test"))
    }
}

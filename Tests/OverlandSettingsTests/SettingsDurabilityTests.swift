import OverlandJournal
import OverlandProtocol
@testable import OverlandSettings
import OverlandSimulation
import Testing

/// The settings, the destinations and `tracking.json` are written by the journal's rules
/// (`FileSystem.replaceAtomically`, `makeDirectories` with its parent's fsync) through the
/// `FileSystem` seam: on a simulated disk, every crash image after a save holds the new
/// file whole, its directories included.
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
        // The first update reads the file through the real file system: there is none there.
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
}

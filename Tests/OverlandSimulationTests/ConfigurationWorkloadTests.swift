import OverlandJournal
import OverlandSettings
@testable import OverlandSimulation
import Testing

/// Settings and destination changes in the explorer's workload (issue 36): written and read
/// through the simulated disk; after any cut the settings file and destinations.json hold
/// the content before a change or after it, whole, and each invariant fails on a made-up
/// state that breaks it.
@Suite struct ConfigurationWorkloadTests {
    static let changes: [Step] = [.settings(version: 1), .destinationAdd(index: 0), .destinationAdd(index: 1), .settings(version: 2),
                                  .destinationRemove(index: 0), .settings(version: 3)]

    /// Every change lands, read back through the disk: the settings, the destinations and
    /// their cursors, tracking.json after a toggle.
    @Test func changesLandAndReadBack() async throws {
        let simulation = Simulation()
        let violation = await simulation.run([.log(count: 5, pad: 10)] + Self.changes)
        #expect(violation == nil, "\(violation.map { "\($0)" } ?? "")")
        let disk = simulation.disk
        let settings = try SettingsFile.load(path: Simulation.settingsPath, fileSystem: disk)
        #expect(settings.deviceID == "sim-3")
        #expect(!settings.trackingEnabled, "version 2 turned tracking off")
        #expect(TrackingChange.load(settingsPath: Simulation.settingsPath, matching: settings, fileSystem: disk)?.off == true)
        let destinations = try DestinationsFile.load(path: DestinationsFile.path(settingsPath: Simulation.settingsPath), fileSystem: disk)
        #expect(destinations == [Simulation.extraDestination(1)])
        let journal = try Journal(path: Simulation.journalPath, fileSystem: disk)
        let cursors = try journal.cursorNames()
        #expect(cursors.contains(CursorName("compass")!) && !cursors.contains(CursorName("traccar")!))
    }

    /// A cut at every change of each kind of change: every invariant holds, and some cut
    /// fell inside a settings change and inside an add and a remove.
    @Test func aCutAtEveryChangeOfEachChange() async {
        for (index, step) in Self.changes.enumerated() {
            for change in 1...14 {
                var steps = Array(Self.changes[..<index])
                steps += [.cut(change: change, image: UInt64(change)), step, .settings(version: 9), .destinationAdd(index: 2)]
                let violation = await Simulation().run([.log(count: 5, pad: 10)] + steps)
                #expect(violation == nil, "\(step), change \(change): \(violation.map { "\($0)" } ?? "")")
            }
        }
    }

    /// The settings check: a torn file, a file gone after a change returned, and content no
    /// change wrote are found; the old or the new content is not.
    @Test func settingsFileCheck() async throws {
        let simulation = Simulation()
        #expect(await simulation.run([.settings(version: 1)]) == nil)
        let disk = simulation.disk
        let journal = try Journal(path: Simulation.journalPath, fileSystem: disk)
        var model = simulation.model
        #expect(Invariants.configuration(disk, journal, model: &model, live: false) == nil)
        var other = Settings()
        other.deviceID = "sim-7"
        try disk.replaceAtomically(Simulation.settingsPath, with: SettingsFile.encode(other))
        #expect(Invariants.configuration(disk, journal, model: &model, live: false)?.kind == "settings")
        model.settingsFile.inFlight = other
        #expect(Invariants.configuration(disk, journal, model: &model, live: false) == nil, "the change in flight's content")
        model = simulation.model
        try disk.replaceAtomically(Simulation.settingsPath, with: Array(SettingsFile.encode(other).prefix(20)))
        #expect(Invariants.configuration(disk, journal, model: &model, live: false)?.kind == "settings")
        try disk.remove(Simulation.settingsPath)
        #expect(Invariants.configuration(disk, journal, model: &model, live: false)?.kind == "settings")
    }

    /// The destinations check: a destination with keys no change wrote, one configured
    /// without its cursor, a file gone: found.
    @Test func destinationsFileCheck() async throws {
        let simulation = Simulation()
        #expect(await simulation.run([.destinationAdd(index: 0)]) == nil)
        let disk = simulation.disk
        let path = DestinationsFile.path(settingsPath: Simulation.settingsPath)
        let journal = try Journal(path: Simulation.journalPath, fileSystem: disk)
        var model = simulation.model
        #expect(Invariants.configuration(disk, journal, model: &model, live: false) == nil)
        var changed = Simulation.extraDestination(0)
        changed.token = "another"
        try disk.replaceAtomically(path, with: DestinationsFile.encode([changed]))
        let keys = try #require(Invariants.configuration(disk, journal, model: &model, live: false))
        #expect(keys.kind == "destinations" && keys.message.contains("keys no change wrote"), "\(keys)")
        try disk.replaceAtomically(path, with: DestinationsFile.encode([Simulation.extraDestination(0)]))
        try journal.removeCursor(for: CursorName("traccar")!)
        let cursor = try #require(Invariants.configuration(disk, journal, model: &model, live: false))
        #expect(cursor.message.contains("has no cursor"), "\(cursor)")
        try disk.remove(path)
        #expect(Invariants.configuration(disk, journal, model: &model, live: false)?.message.contains("gone") == true)
    }

    /// The workload holds settings and destination changes, some with a cut inside.
    @Test func theWorkloadChangesTheConfiguration() {
        var kinds: Set<String> = []
        var cut = 0
        for seed in UInt64(1)...20 {
            let steps = Step.workload(seed: seed)
            for (index, step) in steps.enumerated() where ["settings", "destination add", "destination remove"].contains(step.kind) {
                kinds.insert(step.kind)
                if index > 0, case .cut = steps[index - 1] { cut += 1 }
            }
        }
        #expect(kinds.count == 3)
        #expect(cut > 5)
    }
}

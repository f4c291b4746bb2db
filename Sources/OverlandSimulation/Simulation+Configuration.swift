import OverlandJournal
import OverlandSettings
import OverlandSync

/// Settings and destination changes in the workload, written and read back as overland
/// does, through the `FileSystem` seam: `overland config set` (`SettingsFile.update`, then
/// `TrackingChange.recordIfChanged` when tracking went off or on), `overland destination
/// add` (the cursor placed at the journal's end, then `destinations.json` updated) and
/// `remove` (`destinations.json` first, then the cursor, its state and what only it held),
/// in the order `DestinationCursors` makes them.
extension Simulation {
    /// The settings file, in a tree of its own on the same disk (one cut reaches it too).
    public static let settingsPath = "/config/overland/settings.json"
    static var destinationsPath: String { DestinationsFile.path(settingsPath: settingsPath) }
    /// Destinations added and removed by the workload, besides the three every sync serves:
    /// nothing sends to them; their cursors, state and keys are what is checked.
    public static let extraDestinations = ["traccar", "compass", "phone"]

    /// What `destination add` writes for the extra destination numbered `index`.
    static func extraDestination(_ index: Int) -> Destination {
        let name = extraDestinations[index]
        var destination = Destination(name: name, url: "https://\(name).invalid/overland", wireProtocol: index == 0 ? .traccar : .overland)
        destination.token = "token-\(name)"
        destination.deviceID = "sim-\(index)"
        return destination
    }

    /// `overland config set`: a new device id (`version`) and, every other change,
    /// tracking turned off or on again (then `tracking.json` records who).
    func changeSettings(_ version: Int) throws {
        let settingsPath = Self.settingsPath
        do {
            let (old, new) = try SettingsFile.update(path: settingsPath, fileSystem: disk) { [self] settings in
                settings.deviceID = "sim-\(version)"
                if version % 2 == 0 { settings.trackingEnabled.toggle() }
                model.settingsFile.inFlight = settings
            }
            model.settingsFile.settle(new)
            TrackingChange.recordIfChanged(from: old, to: new, by: "overland config", now: disk.now, settingsPath: settingsPath, fileSystem: disk)
        } catch {
            model.settingsFile.unsettled()
            throw error
        }
    }

    /// `overland destination add NAME URL`: under the cursor lock, the cursor placed at the
    /// journal's end (a stale one and its state replaced, the records it passes over noted
    /// in its state), then the destination written to `destinations.json`. Nothing when it
    /// is there already.
    func addDestination(_ journal: Journal, _ index: Int) throws {
        let destination = Self.extraDestination(index)
        guard try !DestinationsFile.load(path: Self.destinationsPath, fileSystem: disk).contains(where: { $0.name == destination.name }) else { return }
        guard let lock = try journal.tryLockCursors() else { throw JournalError.io(operation: "cursor lock held", path: journal.path, reason: "", code: 0) }
        defer { withExtendedLifetime(lock) {} }
        let cursor = CursorName(destination.name)!
        let end = try journal.endSequence()
        let first = try journal.segments().first.map { min($0.firstSequence, end) } ?? end
        try journal.removeCursor(for: cursor)
        try journal.removeState(SyncState.fileName(forDestination: destination.name))
        try journal.advanceCursor(for: cursor, to: end)
        if end > first {
            var state = SyncState()
            state.startSequence = end
            try state.save(in: journal, as: SyncState.fileName(forDestination: destination.name))
        }
        try updateDestinations { $0.append(destination) }
    }

    /// `overland destination remove NAME`: under the cursor lock, `destinations.json`
    /// first, then its cursor and state, then the sealed segments only it held.
    func removeDestination(_ journal: Journal, _ index: Int) throws {
        let name = Self.extraDestinations[index]
        guard try DestinationsFile.load(path: Self.destinationsPath, fileSystem: disk).contains(where: { $0.name == name }) else { return }
        guard let lock = try journal.tryLockCursors() else { throw JournalError.io(operation: "cursor lock held", path: journal.path, reason: "", code: 0) }
        defer { withExtendedLifetime(lock) {} }
        let left = try updateDestinations { $0.removeAll { $0.name == name } }
        let cursor = CursorName(name)!
        try journal.removeCursor(for: cursor)
        try journal.removeState(SyncState.fileName(forDestination: name))
        let readers = (Self.destinations + left.map(\.name)).compactMap { CursorName($0) }
        coverage.segmentsRemoved += try journal.removeSentSegments(now: disk.now, readers: readers, onlyReaders: true).count
    }

    /// `DestinationsFile.update` through the simulated disk, the model told what may be
    /// there after a cut (`ConfigurationFile`). Returns the destinations after.
    @discardableResult
    func updateDestinations(_ change: (inout [Destination]) -> Void) throws -> [Destination] {
        do {
            let (_, new) = try DestinationsFile.update(path: Self.destinationsPath, fileSystem: disk) { [self] destinations in
                change(&destinations)
                destinations.sort { $0.name < $1.name }
                model.destinationsFile.inFlight = destinations
            }
            model.destinationsFile.settle(new)
            return new
        } catch {
            model.destinationsFile.unsettled()
            throw error
        }
    }

    /// The extra destinations configured now (read as overland-sync reads them): readers
    /// retention must wait for.
    func configuredExtras() throws -> [CursorName] {
        try DestinationsFile.load(path: Self.destinationsPath, fileSystem: disk).compactMap { CursorName($0.name) }
    }
}

/// What a file written whole (the settings, `destinations.json`) may hold after a cut:
/// the content of the last change that returned, or, while a change is in flight or one
/// failed, the content it was writing; nil for no file (before the first change).
struct ConfigurationFile<Content: Equatable> {
    var allowed: [Content?] = [nil]
    /// What a change in flight writes.
    var inFlight: Content?

    /// A change returned: its content, durably, and nothing else.
    mutating func settle(_ content: Content) {
        allowed = [content]
        inFlight = nil
    }

    /// A change failed (a fault, or a cut): the file may hold what it was writing too.
    mutating func unsettled() {
        if let inFlight { allowed.append(inFlight) }
        inFlight = nil
    }

    /// A cut left `content`: from now on the file holds that.
    mutating func observed(_ content: Content?) {
        allowed = [content]
        inFlight = nil
    }
}

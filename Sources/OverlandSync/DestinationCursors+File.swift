import OverlandJournal
import OverlandSettings

/// A destination added to and removed from `destinations.json` together with its cursor:
/// the file changes under the journal's cursor lock (`place`, `release`), never during a sync.
extension DestinationCursors {
    /// Appends `destination` to the destinations file at `destinationsPath` and places its
    /// cursor in the journal at `journalPath` (`place`). A destination of that name added
    /// meanwhile is refused (`DestinationCursorError.exists`) and the new cursor deleted.
    public static func add(_ destination: Destination, destinationsPath: String, journalPath: String, fromStart: Bool,
                           defaultConfigured: Bool, origin: (Journal, _ acceptCopy: Bool) throws -> [String],
                           fileSystem: any FileSystem = POSIXFileSystem()) throws -> Start {
        try place(destination.name, journalPath: journalPath, fromStart: fromStart, defaultConfigured: defaultConfigured, origin: origin) {
            _ = try DestinationsFile.update(path: destinationsPath, fileSystem: fileSystem) { destinations in
                guard !destinations.contains(where: { $0.name == destination.name }) else {
                    throw DestinationCursorError.exists(destination.name)
                }
                destinations.append(destination)
            }
        }
    }

    /// Deletes the destination `name` from the destinations file at `destinationsPath`, then
    /// its cursor and sync state from the journal at `journalPath` (`release`); `remaining`
    /// names the destinations still configured once it is gone. `configured`: it was in the
    /// file; `released`: its cursor or state was in the journal.
    public static func remove(_ name: String, destinationsPath: String, journalPath: String, keepSeconds: Int64,
                              fileSystem: any FileSystem = POSIXFileSystem(),
                              remaining: () throws -> [String]) throws -> (configured: Bool, released: Bool) {
        var configured = false
        let released = try release(name, journalPath: journalPath, keepSeconds: keepSeconds) {
            _ = try DestinationsFile.update(path: destinationsPath, fileSystem: fileSystem) { destinations in
                configured = destinations.contains { $0.name == name }
                destinations.removeAll { $0.name == name }
            }
            return try remaining()
        }
        return (configured, released)
    }
}

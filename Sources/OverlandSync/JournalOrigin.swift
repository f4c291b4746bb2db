#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJSON
import OverlandJournal

/// Copy detection before a sync (journal-format.md section 13). A journal copied by hand
/// keeps its journal id, so two copies would upload the same records twice. This machine
/// keeps a registry (`$XDG_STATE_HOME/overland/journals.json`, else
/// `~/.local/state/overland/journals.json`) of where each journal id was last synced from
/// and how far its cursor had come; a sync is refused when:
///
/// - the journal has an interrupted move pending (`Journal.pendingMove()`);
/// - the same journal id was synced from another path that still holds it (two copies);
/// - the journal's cursor is behind the cursor this machine already saw for its id (an
///   older copy, or a backup put back: its records from there on were sent already);
/// - the journal is new to this machine's registry, was created on another machine (its
///   manifest's `machine`, a hashed machine id, is not this one's) and not by `overland
///   journal move` (a copy of another machine's journal). Device ids play no part: a
///   logger and a sync on one machine may use different ones. A journal whose manifest
///   names no machine (made before it was recorded) is not refused on this ground.
///
/// `acceptCopy` overrides all but the first, and registers the journal where it is.
///
/// It lives with the sync, not the journal: the journal knows readers and cursors, not
/// where or when they upload. The journal's cursor here is its floor (`cursor.json`,
/// journal-format.md section 9), which only rises when every reader has sent.
public enum JournalOrigin {
    /// The registry file's default place, from the environment; nil without a home.
    public static func defaultRegistryPath(environment: (String) -> String? = { name in
        guard let value = getenv(name) else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(start: value, count: strlen(value)), as: UTF8.self)
        return text.isEmpty ? nil : text
    }) -> String? {
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") { return state + "/overland/journals.json" }
        guard let home = environment("HOME"), home.hasPrefix("/") else { return nil }
        return home + "/.local/state/overland/journals.json"
    }

    /// Checks that `journal` may be synced from here, then records its path and cursor in
    /// the registry at `registry`. `machine` is this machine's hashed machine id (nil when
    /// it has none: then a journal's machine is not compared).
    public static func check(_ journal: Journal, registry: String, machine: String?, acceptCopy: Bool = false,
                             now: Int64 = Journal.currentTime()) throws(JournalOriginError) {
        if let intent = try wrapOrigin({ () throws(JournalError) in try journal.pendingMove() }) {
            throw .movePending(intent)
        }
        let here = PrivateFile.realPath(journal.path) ?? journal.path
        let next = try wrapOrigin { () throws(JournalError) in try journal.cursor() }
        let movedFrom = try wrapOrigin { () throws(JournalError) in try journal.movedFrom() }
        try Registry.update(registry) { (entries: inout [String: Registry.Entry]) throws(JournalOriginError) in
            let key = journal.id.description
            var entry = entries[key] ?? Registry.Entry(path: here, next: next, synced: now)
            if let known = entries[key], !acceptCopy {
                if known.path != here, Self.holdsJournal(journal.id, at: known.path), !Self.sameDirectory(known.path, here) {
                    throw .secondPath(id: journal.id, registered: known.path, current: here)
                }
                if next < known.next {
                    throw .olderCopy(id: journal.id, registeredNext: known.next, next: next, registered: known.path)
                }
            } else if entries[key] == nil, !acceptCopy, movedFrom == nil,
                      let creator = journal.manifest.machine, let machine, creator != machine {
                throw .foreignMachine(id: journal.id, device: journal.manifest.deviceID)
            }
            entry.path = here
            entry.next = acceptCopy ? next : max(next, entries[key]?.next ?? next)
            entry.synced = now
            entries[key] = entry
        }
    }

    /// Records the journal's cursor after a sync, so that an older copy is recognised.
    public static func record(_ journal: Journal, registry: String, now: Int64 = Journal.currentTime()) throws(JournalError) {
        let here = PrivateFile.realPath(journal.path) ?? journal.path
        let next = try journal.cursor()
        do {
            try Registry.update(registry) { (entries: inout [String: Registry.Entry]) throws(JournalOriginError) in
                let key = journal.id.description
                guard var entry = entries[key], entry.path == here else { return }
                entry.next = max(entry.next, next)
                entry.synced = now
                entries[key] = entry
            }
        } catch {
            if case .registry(let cause) = error { throw cause }
        }
    }

    /// True when `path` holds a journal with this id (read from its manifest only: the
    /// other copy is not touched).
    private static func holdsJournal(_ id: JournalID, at path: String) -> Bool {
        guard PrivateFile.kind(path + "/manifest.json") == .file,
              let other = try? Journal(path: path, readOnly: true) else { return false }
        return other.id == id
    }

    private static func sameDirectory(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}

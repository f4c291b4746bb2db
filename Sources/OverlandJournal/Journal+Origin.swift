#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJSON

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
        let here = FileSystem.realPath(journal.path) ?? journal.path
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
        let here = FileSystem.realPath(journal.path) ?? journal.path
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
        let manifestPath = path + "/manifest.json"
        guard let bytes = try? FileSystem.readFile(manifestPath, limit: 4096),
              let manifest = try? JournalManifest(parsing: bytes, path: manifestPath) else { return false }
        return manifest.journalID == id
    }

    private static func sameDirectory(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// The registry file: `{"version":1,"journals":{ID:{"path":P,"next":N,"synced":T}}}`,
    /// replaced whole under an exclusive lock on `journals.lock` beside it.
    enum Registry {
        struct Entry {
            var path: String
            var next: UInt64
            var synced: Int64
        }

        static func update(_ file: String, _ change: (inout [String: Entry]) throws(JournalOriginError) -> Void) throws(JournalOriginError) {
            let directory = FileSystem.parentDirectory(of: file)
            let lock: FileLock
            do {
                try FileSystem.makeDirectories(directory)
                lock = try FileLock(path: directory + "/journals.lock", create: true)
                try lock.lock(.exclusive)
            } catch {
                throw .registry(error)
            }
            defer { lock.unlock() }
            var entries = try wrapOrigin { () throws(JournalError) in try read(file) }
            try change(&entries)
            try wrapOrigin { () throws(JournalError) in try FileSystem.replaceAtomically(file, with: encode(entries)) }
        }

        static func read(_ file: String) throws(JournalError) -> [String: Entry] {
            switch FileSystem.kind(file) {
            case .missing: return [:]
            case .file: break
            case .symlink: throw .untrusted(path: file, reason: "is a symbolic link")
            default: throw .untrusted(path: file, reason: "not a regular file")
            }
            let bytes = try FileSystem.readFile(file, limit: 4 << 20)
            guard let value = try? JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 4, maxBytes: 4 << 20)),
                  let journals = value["journals"]?.object else {
                // A damaged registry only weakens the checks: start it again.
                return [:]
            }
            var entries: [String: Entry] = [:]
            for (key, item) in journals {
                guard JournalID(hex: key) != nil, let path = item["path"]?.string,
                      let next = item["next"]?.double, SequenceNumber.isValidEnd(next) else { continue }
                let synced = item["synced"]?.string.flatMap { ISO8601UTC.parse($0) } ?? 0
                entries[key] = Entry(path: path, next: UInt64(next), synced: synced)
            }
            return entries
        }

        static func encode(_ entries: [String: Entry]) -> [UInt8] {
            var writer = JSONWriter()
            writer.appendRaw("{\"version\":1,\"journals\":{" as StaticString)
            for (index, key) in entries.keys.sorted().enumerated() {
                let entry = entries[key]!
                if index > 0 { writer.appendRaw(",") }
                writer.appendRaw("\n")
                writer.appendString(key)
                writer.appendRaw(":{\"path\":" as StaticString)
                writer.appendString(entry.path)
                writer.appendRaw(",\"next\":" as StaticString)
                writer.appendInteger(Int64(entry.next))
                writer.appendRaw(",\"synced\":" as StaticString)
                writer.appendString(ISO8601UTC.string(from: entry.synced))
                writer.appendRaw("}")
            }
            writer.appendRaw("}}\n" as StaticString)
            return writer.bytes
        }
    }
}

/// Why a sync of a journal was refused: it may be a copy whose records another copy sends.
public enum JournalOriginError: Error, Sendable, CustomStringConvertible {
    /// A move of this journal was interrupted; its records may already be in the target.
    case movePending(JournalMoveIntent)
    /// The same journal id was synced from another path that still holds it.
    case secondPath(id: JournalID, registered: String, current: String)
    /// The cursor is behind the one this machine saw for this journal id.
    case olderCopy(id: JournalID, registeredNext: UInt64, next: UInt64, registered: String)
    /// New here, created on another machine, not by `move`.
    case foreignMachine(id: JournalID, device: String)
    /// The registry could not be read or written.
    case registry(JournalError)

    public var description: String {
        switch self {
        case .movePending(let intent):
            return intent.description + "; until then this journal is not synced (its records may be in the target already)"
        case .secondPath(let id, let registered, let current):
            return "journal \(id) was synced from '\(registered)', which still holds it: '\(current)' is a copy, and syncing both "
                + "uploads the same points twice. Sync only one copy and delete the other; if '\(registered)' will never be "
                + "synced again, pass --accept-copy"
        case .olderCopy(let id, let registeredNext, let next, let registered):
            return "journal \(id) was already synced up to record \(registeredNext) (from '\(registered)'), but this copy's "
                + "cursor is at \(next): it is an older copy, and syncing it uploads records \(next)..<\(registeredNext) again. "
                + "Pass --accept-copy to send them anyway"
        case .foreignMachine(let id, let device):
            let made = device.isEmpty ? "" : " (for device '\(device)')"
            return "journal \(id) was created on another machine\(made) and not by 'overland journal move': "
                + "it looks like a hand copy, and if the original is synced too, points are uploaded twice. Use "
                + "'overland journal move' to carry journals; pass --accept-copy if the original will never be synced"
        case .registry(let error):
            return "cannot use the journal registry: \(error)"
        }
    }
}

private func wrapOrigin<T>(_ body: () throws(JournalError) -> T) throws(JournalOriginError) -> T {
    do {
        return try body()
    } catch {
        throw .registry(error)
    }
}

import OverlandJSON
import OverlandJournal

/// This machine's registry of synced journals (journal-format.md section 13):
/// `{"version":1,"journals":{ID:{"path":P,"next":N,"synced":T}}}`, replaced whole under an
/// exclusive lock on `journals.lock` beside it.
extension JournalOrigin {
    enum Registry {
        struct Entry {
            var path: String
            var next: UInt64
            var synced: Int64
        }

        static func update(_ file: String, _ change: (inout [String: Entry]) throws(JournalOriginError) -> Void) throws(JournalOriginError) {
            let directory = PrivateFile.parentDirectory(of: file)
            let lock: JournalLock
            do {
                try PrivateFile.makeDirectories(directory)
                lock = try PrivateFile.lock(directory + "/journals.lock")
            } catch {
                throw .registry(error)
            }
            defer { withExtendedLifetime(lock) {} }
            var entries = try wrapOrigin { () throws(JournalError) in try read(file) }
            try change(&entries)
            try wrapOrigin { () throws(JournalError) in try PrivateFile.replaceAtomically(file, with: encode(entries)) }
        }

        static func read(_ file: String) throws(JournalError) -> [String: Entry] {
            switch PrivateFile.kind(file) {
            case .missing: return [:]
            case .file: break
            case .symlink: throw .untrusted(path: file, reason: "is a symbolic link")
            default: throw .untrusted(path: file, reason: "not a regular file")
            }
            let bytes = try PrivateFile.read(file, limit: 4 << 20)
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

func wrapOrigin<T>(_ body: () throws(JournalError) -> T) throws(JournalOriginError) -> T {
    do {
        return try body()
    } catch {
        throw .registry(error)
    }
}

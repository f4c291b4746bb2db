#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A journal: a directory of segments (gzip files of JSON lines), a manifest and a cursor.
/// See journal-format.md. A `Journal` value reads; `JournalAppender` writes.
public final class Journal: @unchecked Sendable {
    /// The journal directory.
    public let path: String
    public let manifest: JournalManifest
    let lock: FileLock?
    /// Where its files are read and written: the POSIX file system, or a simulated disk.
    public let fileSystem: any FileSystem
    var fs: any FileSystem { fileSystem }
    /// The progress records this value wrote last, one per reader (`ProgressMemo`).
    let progressMemo = ProgressMemo()

    /// The manifest's journal id.
    public var id: JournalID { manifest.journalID }

    var segmentsPath: String { path + "/segments" }
    var cursorPath: String { path + "/cursor.json" }
    var damagedPath: String { path + "/damaged" }
    /// Where tools keep their small state files (section 1 of journal-format.md).
    public var statePath: String { path + "/state" }

    /// The largest segment file a reader loads; a larger one is refused as damage.
    static let maxSegmentFileBytes = 256 << 20

    /// Opens the journal at `path`. With `create`, a missing journal is made (directories
    /// 0700, manifest for `deviceID`, made on `machine`, a hashed machine id); otherwise a
    /// directory without a manifest is an error. With `readOnly` (`verify`), nothing is
    /// created, not even a missing `journal.lock`.
    public init(path: String, create: Bool = false, readOnly: Bool = false, deviceID: String = "", machine: String? = nil,
                now: Int64 = Journal.currentTime(), fileSystem fs: any FileSystem = POSIXFileSystem()) throws(JournalError) {
        self.path = path
        fileSystem = fs
        let manifestPath = path + "/manifest.json"
        switch fs.kind(path) {
        case .missing, .directory, .symlink: break // a link to a journal directory is the user's choice
        default: throw .notAJournal(path: path, reason: "not a directory")
        }
        // Not absent but out of reach (a directory we may not search): `lookUp` says so.
        if try fs.lookUp(manifestPath) == .missing {
            guard create else {
                throw .notAJournal(path: path, reason: fs.kind(path) == .missing ? "no such directory" : "no manifest.json")
            }
            // Never adopt a directory that holds other things (a mistyped --journal ~). What a
            // creator at the same moment writes (the manifest included) is no such thing.
            let journalFiles: Set<String> = ["journal.lock", "segments", "manifest.json"]
            if fs.kind(path) != .missing, let entries = try? fs.listDirectory(path),
               entries.contains(where: { !journalFiles.contains($0) && !$0.hasPrefix(".tmp-") }) {
                throw .notAJournal(path: path, reason: "the directory is not empty and holds no journal; name a new or empty directory")
            }
            try fs.makeDirectories(path)
            // Two processes may create the journal at once (the logger and a trip command):
            // under the lock, the second finds the first one's manifest and uses it.
            let creationLock = try FileLock(path: path + "/journal.lock", create: true, in: fs)
            try creationLock.withLock(.exclusive) { () throws(JournalError) in
                guard fs.kind(manifestPath) == .missing else { return }
                let manifest = JournalManifest(journalID: .random(), deviceID: deviceID, created: now, machine: machine)
                try fs.makeDirectory(path + "/segments")
                try fs.replaceAtomically(manifestPath, with: manifest.encoded)
                try fs.syncDirectory(FilePath.parentDirectory(of: path))
            }
        }
        try Self.refuseIfOthersCanWrite(path, in: fs)
        switch fs.kind(manifestPath) {
        case .file: break
        case .symlink: throw .untrusted(path: manifestPath, reason: "is a symbolic link")
        // A directory, FIFO or device: refused like a link (section 2), never opened.
        default: throw .untrusted(path: manifestPath, reason: "not a regular file")
        }
        manifest = try JournalManifest(parsing: fs.readFile(manifestPath, limit: 4096), path: manifestPath)
        switch fs.kind(path + "/segments") {
        case .directory: break
        case .missing where create: try fs.makeDirectory(path + "/segments")
        case .missing: throw .notAJournal(path: path, reason: "no segments directory")
        case .symlink: throw .untrusted(path: path + "/segments", reason: "is a symbolic link")
        // A file, FIFO or device in its place is refused like a link (section 2).
        default: throw .untrusted(path: path + "/segments", reason: "not a directory")
        }
        let lockPath = path + "/journal.lock"
        switch fs.kind(lockPath) {
        case .symlink: throw .untrusted(path: lockPath, reason: "is a symbolic link")
        // A directory, FIFO or device takes no lock: every writer would then fail (section 2).
        case .directory, .other: throw .untrusted(path: lockPath, reason: "not a regular file")
        case .missing, .file: break
        }
        // The readers' cursors: a link there could point every reader at another journal's.
        switch fs.kind(path + "/cursors") {
        case .missing, .directory: break
        case .symlink: throw .untrusted(path: path + "/cursors", reason: "is a symbolic link")
        default: throw .untrusted(path: path + "/cursors", reason: "not a directory")
        }
        // On read-only media there may be no lock file and no way to make one; nobody can be
        // appending there, so reading without it is safe.
        lock = try? FileLock(path: lockPath, create: !readOnly, in: fs)
    }

    /// Refuses a journal directory that another user could have written: writable by every
    /// user (0777; the sticky bit does not stop another user adding a segment) or owned by another user (root and the caller's
    /// own are fine; root may open any). Its segments, manifest or cursor could then be
    /// anyone's, and records could be forged or removed. A file system without Unix
    /// permissions (FAT, exFAT, NTFS, FUSE: the usual USB stick) shows every file as the
    /// mounting user's, often 0777, and cannot say otherwise: it is not refused, since
    /// refusing would break the portable journal.
    static func refuseIfOthersCanWrite(_ path: String, in fs: any FileSystem) throws(JournalError) {
        guard let info = fs.writers(of: path) else { return }
        let me = info.me
        let worldWritable = info.mode & 0o002 != 0
        let foreign = me != 0 && info.owner != me && info.owner != 0
        guard worldWritable || foreign else { return }
        // Asked only now: most journals pass without reading the mount table.
        if let type = fs.mountType(of: path), typesWithoutPermissions.contains(type) { return }
        if worldWritable {
            let mode = String(info.mode, radix: 8)
            throw .exposed(path: path, reason: "any user can write to it (mode \(String(repeating: "0", count: max(0, 4 - mode.count)) + mode)): another user could have changed its records; run 'chmod 700 \(path)'")
        }
        throw .exposed(path: path, reason: "it belongs to user \(info.owner), not to you (\(me)): another user could have written its records")
    }

    /// Throws when `path`, a directory of this journal, is on a read-only file system: a
    /// writer learns so at once rather than at its first write.
    public func requireWritable(_ path: String) throws(JournalError) {
        if fs.isReadOnly(path) {
            throw .io(operation: "cannot write to", path: path, reason: "read-only file system", code: EROFS)
        }
    }

    /// Wall-clock Unix seconds.
    public static func currentTime() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }

    // MARK: - Segments

    /// The segments, oldest first. Files with other names are reported and ignored;
    /// temporary files of an interrupted write (`.tmp-*`) are ignored silently.
    public func segments(onIssue: JournalIssueHandler? = nil) throws(JournalError) -> [SegmentName] {
        var names: [SegmentName] = []
        for fileName in try fs.listDirectory(segmentsPath) {
            if let name = SegmentName(fileName: fileName) {
                names.append(name)
            } else if !fileName.hasPrefix(".tmp-") {
                onIssue?(JournalIssue(kind: .unexpectedFile, file: "segments/" + fileName, offset: 0, length: 0,
                                      reason: "segment names are 20 digits and .jsonl.gz"))
            }
        }
        return names.sorted()
    }

    func segmentPath(_ name: SegmentName) -> String { segmentsPath + "/" + name.fileName }

    // MARK: - Counting

    /// The journal's end: the sequence number the next appended record will get, the
    /// larger of the newest segment's end and the highest cursor (journal-format.md
    /// section 6, step 2). After a move or retention took every segment, the cursors keep
    /// the numbering: nothing numbered below the end is ever appended again. Costs one
    /// segment read and the cursor files, whatever the backlog.
    public func endSequence() throws(JournalError) -> UInt64 {
        max(try newestSegmentEnd(), try highestCursor(refusing: false))
    }

    /// One past the newest record of the segments, at least the newest segment's name (0
    /// without segments). `committed: false` reads the newest segment whole, for a
    /// caller holding the exclusive journal lock.
    func newestSegmentEnd(committed: Bool = true) throws(JournalError) -> UInt64 {
        let names = try segments()
        for (index, name) in names.enumerated().reversed() {
            let file = try SegmentFile(self, name, committed: committed && index == names.count - 1)
            let layout = try SegmentLayout(reading: file, name: name, journalID: id)
            // A newest segment without a record still holds its name's number (as an appender reads it).
            if let end = layout.endSequence { return max(end, names.last?.firstSequence ?? 0) }
        }
        return names.last?.firstSequence ?? 0
    }

    /// The newest record in the journal, if any.
    public func lastRecord(onIssue: JournalIssueHandler? = nil) throws(JournalError) -> JournalRecord? {
        try lastRecord(where: { _ in true })
    }

    /// The newest record that `matches` accepts, looking through the newest
    /// `segmentLimit` segments at most (the cost stays bounded whatever the journal's size).
    public func lastRecord(segmentLimit: Int = 2, where matches: (ArraySlice<UInt8>) -> Bool) throws(JournalError) -> JournalRecord? {
        let names = try segments()
        for (index, name) in names.enumerated().reversed().prefix(segmentLimit) {
            let file = try SegmentFile(self, name, committed: index == names.count - 1)
            if let record = try Self.lastRecord(in: file, name: name, journalID: id, where: matches) { return record }
        }
        return nil
    }

    /// Members kept at a time when looking for the newest record from the end of a segment.
    static let newestMembersKept = 256

    /// The newest record of one segment file that `matches` accepts. The walk goes forward,
    /// keeping only the newest `newestMembersKept` to `2 * newestMembersKept` members, which
    /// are read newest first; only when none of them holds a match is the rest read forward,
    /// keeping the last match. Memory stays bounded whatever the number of members.
    static func lastRecord(in file: SegmentFile, name: SegmentName, journalID: JournalID,
                           where matches: (ArraySlice<UInt8>) -> Bool) throws(JournalError) -> JournalRecord? {
        var older: [SegmentLayout.Located] = []
        var newer: [SegmentLayout.Located] = []
        var dropped = false
        for member in file.members(name: name, journalID: journalID) {
            if newer.count == newestMembersKept {
                dropped = dropped || !older.isEmpty
                swap(&older, &newer)
                newer.removeAll(keepingCapacity: true)
            }
            newer.append(member)
        }
        if let error = file.readError { throw error }
        var memberBytes: [UInt8] = []
        for member in (older + newer).reversed() {
            try file.readMember(member, into: &memberBytes)
            let decoded = memberBytes.withUnsafeBytes { Member.decodePayload($0, header: member.header) }
            guard case .success(let payload) = decoded else { continue }
            var end = payload.count - 1
            var sequence = member.header.endSequence
            while end > 0 {
                let start = payload[..<end].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
                sequence -= 1
                if matches(payload[start..<end]) { return JournalRecord(sequence: sequence, line: payload[start..<end]) }
                end = start - 1
            }
        }
        guard dropped, let kept = older.first ?? newer.first else { return nil }
        // None of the newest members holds a match: the older ones, forward, the last match kept.
        var found: JournalRecord?
        var payload: [UInt8] = []
        for member in file.members(name: name, journalID: journalID) {
            guard member.offset < kept.offset else { break }
            try file.readMember(member, into: &memberBytes)
            guard memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header, into: &payload) }) == nil else { continue }
            var start = 0
            var sequence = member.header.firstSequence
            while start < payload.count {
                let end = payload[start...].firstIndex(of: UInt8(ascii: "\n"))!
                if matches(payload[start..<end]) { found = JournalRecord(sequence: sequence, line: ArraySlice(Array(payload[start..<end]))) }
                sequence += 1
                start = end + 1
            }
        }
        if let error = file.readError { throw error }
        return found
    }

    /// Reads records from `sequence` on, oldest first.
    public func records(from sequence: UInt64, onIssue: JournalIssueHandler? = nil) throws(JournalError) -> JournalReader {
        try JournalReader(journal: self, from: sequence, onIssue: onIssue)
    }

    // MARK: - Retention

    /// True when the segment ends with a valid seal (a cheap check of its last member).
    public func isSealed(_ name: SegmentName) throws(JournalError) -> Bool {
        let file = segmentPath(name)
        let fd = try fs.openForReading(file)
        defer { fs.close(fd) }
        let size = try fs.size(fd, path: file)
        let sealSize = Member.headerSize + Member.emptyDeflate.count + Member.trailerSize
        guard size >= sealSize else { return false }
        let tail = try fs.read(fd, at: size - sealSize, count: sealSize, path: file)
        guard case .success(let header) = Member.parseHeader(tail), header.kind == .seal,
              header.memberSize == sealSize, header.journalID == id, header.firstSequence == name.firstSequence else { return false }
        return true
    }
}

/// One record: its sequence number and its line (without the newline).
public struct JournalRecord: Sendable {
    public let sequence: UInt64
    /// The record's JSON, exactly as stored and as it will be sent.
    public let line: ArraySlice<UInt8>
}

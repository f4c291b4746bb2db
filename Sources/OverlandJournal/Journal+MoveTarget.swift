#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJSON

/// The target of a move: found, or created with `moved_from` in its manifest.
extension Journal {
    /// The ids of the journals this one was created from by `move`, or nil when it was not
    /// created by a move (its manifest has no `moved_from`).
    public func movedFrom() throws(JournalError) -> [JournalID]? {
        let manifestPath = path + "/manifest.json"
        let bytes = try fs.readFile(manifestPath, limit: JournalManifest.maximumSize)
        guard case .members(let members) = TopLevelMembers.checked(bytes),
              let list = TopLevelMembers.value("moved_from", in: members, of: bytes)?.array else { return nil }
        var ids: [JournalID] = []
        for item in list {
            guard let text = item.string, let id = JournalID(hex: text) else {
                throw .untrusted(path: manifestPath, reason: "moved_from holds something that is not a journal id")
            }
            ids.append(id)
        }
        return ids
    }

    /// The target of a pending move, found at `targetPath`.
    func openPendingTarget(_ intent: JournalMoveIntent, at targetPath: String) throws(JournalMoveError) -> Journal {
        guard intent.sourceID == id else {
            throw .journal(.untrusted(path: statePath(of: Self.moveIntentStateName), reason: "move intent of journal \(intent.sourceID), not \(id)"))
        }
        guard fs.kind(targetPath + "/manifest.json") == .file else {
            throw .targetMissing(path: targetPath, intent: intent)
        }
        let target = try wrap { () throws(JournalError) in try Journal(path: targetPath, fileSystem: fs) }
        guard target.id == intent.targetID else { throw .otherMovePending(intent) }
        return target
    }

    /// Opens the target journal, or creates it (empty directory or none) with a manifest
    /// that names this journal in `moved_from`.
    func openMoveTarget(_ targetPath: String, now: Int64) throws(JournalMoveError) -> (journal: Journal, created: Bool) {
        if let source = fs.realPath(path) {
            let destination = fs.resolvedPath(targetPath)
            if destination == source || destination.hasPrefix(source + "/") { throw .sameJournal(path: targetPath) }
        }
        var created = false
        let manifestPath = targetPath + "/manifest.json"
        if fs.kind(manifestPath) == .missing {
            switch fs.kind(targetPath) {
            case .missing: break
            case .directory:
                let entries = (try? fs.listDirectory(targetPath)) ?? []
                // Our own lock file may be all there is after a crash during creation.
                guard entries.allSatisfy({ $0 == "journal.lock" || $0 == "segments" || $0.hasPrefix(".tmp-") }) else {
                    throw .targetNotEmpty(path: targetPath)
                }
            case .symlink: throw .journal(.untrusted(path: targetPath, reason: "is a symbolic link"))
            default: throw .targetNotEmpty(path: targetPath)
            }
            try wrap { () throws(JournalError) in
                try fs.makeDirectories(targetPath)
                let creationLock = try FileLock(path: targetPath + "/journal.lock", create: true, in: fs)
                try creationLock.withLock(.exclusive) { () throws(JournalError) in
                    guard fs.kind(manifestPath) == .missing else { return }
                    var manifest = JournalManifest(journalID: .random(), deviceID: self.manifest.deviceID, created: now).encoded
                    // The manifest's keys, then `moved_from` (readers ignore keys they do not know).
                    manifest.removeLast(2)
                    manifest += Array(",\"moved_from\":[\"\(id)\"]}\n".utf8)
                    try fs.makeDirectory(targetPath + "/segments")
                    try fs.replaceAtomically(manifestPath, with: manifest)
                    try fs.syncDirectory(FilePath.parentDirectory(of: targetPath))
                    created = true
                }
            }
        }
        let target = try wrap { () throws(JournalError) in try Journal(path: targetPath, fileSystem: fs) }
        guard target.id != id else { throw .sameJournal(path: targetPath) }
        if try wrap({ () throws(JournalError) in try target.movedFrom() }) == nil {
            throw .notAMoveTarget(path: targetPath)
        }
        return (target, created)
    }

    /// The exclusive journal lock, held while a move writes into this journal (nil on
    /// read-only media, where nothing can be written anyway).
    func exclusiveLock() throws(JournalError) -> FileLock? {
        try lock?.lock(.exclusive)
        return lock
    }

    /// The first sequence number a moved record may take here: past every record and the
    /// cursor. The caller holds the exclusive lock, so files are read without the shared one.
    func nextMoveSequence() throws(JournalError) -> UInt64 {
        max(try newestSegmentEnd(committed: false), try highestCursor())
    }
}

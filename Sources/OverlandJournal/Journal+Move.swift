#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJSON

/// Moving sealed, unsent segments into another journal, typically on a USB stick
/// (`overland journal move`, journal-format.md section 12).
///
/// The target is a journal of its own (its own id, manifest with `moved_from`, cursor).
/// Each moved member is re-stamped with the target's journal id and sequence numbers; its
/// deflate data and CRC-32 stay as they are. Segments move one at a time, oldest first:
///
/// 1. the plan goes to the source's `state/move.json` (the intent); while it exists the
///    source must not be synced (`pendingMove()`);
/// 2. the segment is written to the target as `.tmp-NAME`, fsynced, renamed and the
///    directory fsynced, then read back and checked against what was meant;
/// 3. the source cursor moves past the segment's records, then the source file is deleted;
/// 4. after the last segment, the intent is removed.
///
/// A run that finds an intent finishes it first: a segment found complete in the target is
/// not written again. Fault points for the crash tests: `move.after-target`,
/// `move.after-intent`, `move.after-write` (temporary file synced, not renamed),
/// `move.after-copy`, `move.after-verify`, `move.after-cursor`, `move.after-delete` (the
/// last four once per segment: `NAME:N` for the Nth).
extension Journal {
    /// The state file that holds a move's intent.
    public static let moveIntentStateName = "move.json"
    /// The source's lock that keeps a sync and a move (or two moves) apart.
    static let syncLockName = "sync.lock"
    /// Segments planned by one intent at most (the intent stays a small state file).
    static let maxSegmentsPerIntent = 256

    /// The interrupted move of this journal, if any: while one is pending, the journal
    /// must not be synced (its records may already be in the target).
    public func pendingMove() throws(JournalError) -> JournalMoveIntent? {
        do {
            guard let bytes = try readState(Self.moveIntentStateName) else { return nil }
            return try JournalMoveIntent(parsing: bytes, path: statePath(of: Self.moveIntentStateName))
        } catch .untrusted(let path, let reason) {
            throw .untrusted(path: path, reason: reason + "; 'overland journal move --abort' sets it aside")
        }
    }

    /// The ids of the journals this one was created from by `move`, or nil when it was not
    /// created by a move (its manifest has no `moved_from`).
    public func movedFrom() throws(JournalError) -> [JournalID]? {
        let manifestPath = path + "/manifest.json"
        let bytes = try FileSystem.readFile(manifestPath, limit: 4096)
        guard let value = try? JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 4, maxBytes: 4096)),
              let list = value["moved_from"]?.array else { return nil }
        var ids: [JournalID] = []
        for item in list {
            guard let text = item.string, let id = JournalID(hex: text) else {
                throw .untrusted(path: manifestPath, reason: "moved_from holds something that is not a journal id")
            }
            ids.append(id)
        }
        return ids
    }

    /// Moves this journal's sealed, unsent segments into the journal at `targetPath`
    /// (created when missing), finishing an interrupted move first. With `sealFirst`, the
    /// active segment is sealed before, so that it moves too.
    @discardableResult
    public func move(to targetPath: String, sealFirst: Bool = false, now: Int64 = Journal.currentTime(),
                     onIssue: JournalIssueHandler? = nil) throws(JournalMoveError) -> JournalMoveReport {
        let syncLock = try acquireSyncLock()
        defer { withExtendedLifetime(syncLock) {} }

        var report: JournalMoveReport
        let target: Journal
        let pending = try wrap { () throws(JournalError) in try pendingMove() }
        if let pending {
            target = try openPendingTarget(pending, at: targetPath)
            report = JournalMoveReport(targetID: target.id, targetPath: targetPath)
            report.resumed = true
        } else {
            let opened = try openMoveTarget(targetPath, now: now)
            target = opened.journal
            report = JournalMoveReport(targetID: target.id, targetPath: targetPath)
            report.targetCreated = opened.created
        }
        FaultPoint.reach("move.after-target")
        // Held to the end: nothing else writes into the target meanwhile (another move).
        let targetLock = try wrap { () throws(JournalError) in try target.exclusiveLock() }
        defer { targetLock?.unlock() }
        if var intent = pending {
            if intent.targetPath != targetPath {
                intent.targetPath = targetPath
                try wrap { () throws(JournalError) in try writeState(Self.moveIntentStateName, intent.encoded) }
            }
            try finishMove(intent, into: target, report: &report)
        }
        if sealFirst {
            try wrap { () throws(JournalError) in try JournalAppender(journal: self, onIssue: onIssue).sealActive() }
        }
        while true {
            let plan = try wrap { () throws(JournalError) in try planMove(into: target) }
            report.stoppedAt = plan.stoppedAt
            guard !plan.intent.segments.isEmpty else { break }
            try wrap { () throws(JournalError) in
                // Never write an intent that could not be read back: it would stop every
                // sync and move of this journal.
                let encoded = plan.intent.encoded
                _ = try JournalMoveIntent(parsing: encoded, path: statePath(of: Self.moveIntentStateName))
                try writeState(Self.moveIntentStateName, encoded)
            }
            FaultPoint.reach("move.after-intent")
            try finishMove(plan.intent, into: target, report: &report)
            if !plan.truncated { break }
        }
        return report
    }

    /// Ends an interrupted move without finishing it: a segment found complete in the
    /// target counts as moved (its source copy is removed; one found there in part is
    /// completed first), the others stay in this journal, and the intent goes. The target must be reachable unless `targetLost`: then every
    /// remaining segment stays here, and if the lost target turns up and is synced, the
    /// records of at most the one segment that was in flight are uploaded twice.
    @discardableResult
    public func abortMove(targetPath: String?, targetLost: Bool = false) throws(JournalMoveError) -> JournalMoveReport {
        let syncLock = try acquireSyncLock()
        defer { withExtendedLifetime(syncLock) {} }
        let pending: JournalMoveIntent?
        do {
            pending = try pendingMove()
        } catch .untrusted {
            // An intent that cannot be read (damaged, or written by a hostile tool) must not
            // lock the journal: set it aside. Every segment it could name is still here (a
            // source copy goes only after the cursor passed it); the target, if synced, may
            // send the records of at most the segment that was in flight again.
            var report = JournalMoveReport(targetID: id, targetPath: targetPath ?? "")
            report.intentSetAside = try wrap { () throws(JournalError) in try setAsideMoveIntent() }
            return report
        } catch {
            throw .journal(error)
        }
        guard let intent = pending else { throw .noPendingMove }
        let path = targetPath ?? intent.targetPath
        var report = JournalMoveReport(targetID: intent.targetID, targetPath: path)
        if FileSystem.kind(path + "/manifest.json") == .file {
            // With --target-lost, a target that cannot be used (another journal at that
            // path, a hostile or damaged one, an I/O error) is taken as lost: the intent
            // goes anyway, so that nothing there can lock this journal.
            do throws(JournalMoveError) {
                let target = try openPendingTarget(intent, at: path)
                try wrap { () throws(JournalError) in
                    let lock = try target.exclusiveLock()
                    defer { lock?.unlock() }
                    var cursor = try self.cursor()
                    for segment in intent.segments {
                        if cursor >= segment.end {
                            try removeMovedSource(segment.name)
                            continue
                        }
                        let built = try buildMovedSegment(segment, targetID: target.id)
                        switch try target.state(of: built) {
                        case .complete:
                            break
                        case .ours:
                            // Part of it is in the target, where it may be synced: complete it
                            // rather than leave records in both journals.
                            do throws(MoveWriteError) {
                                try target.writeMovedSegment(built)
                            } catch {
                                throw error.journalError
                            }
                            try target.verifyMovedSegment(built)
                        case .absent, .foreign:
                            return
                        }
                        try advanceCursor(to: segment.end)
                        cursor = segment.end
                        try removeMovedSource(segment.name)
                        report.add(built)
                    }
                }
            } catch {
                if !targetLost { throw error }
            }
        } else if !targetLost {
            throw .targetMissing(path: path, intent: intent)
        }
        try wrap { () throws(JournalError) in try removeState(Self.moveIntentStateName) }
        return report
    }

    /// Renames an unreadable move intent into `damaged/` (kept for inspection, never read
    /// again) and returns where it went.
    private func setAsideMoveIntent() throws(JournalError) -> String {
        let from = statePath(of: Self.moveIntentStateName)
        try FileSystem.makeDirectory(damagedPath)
        let to = damagedPath + "/" + Self.moveIntentStateName + ".unreadable-\(Journal.currentTime())"
        guard rename(from, to) == 0 else { throw FileSystem.errnoError("cannot set aside", from) }
        try FileSystem.syncDirectory(statePath)
        try FileSystem.syncDirectory(damagedPath)
        return to
    }

    /// The source's sync lock: no sync reads or moves the cursor while a move runs.
    private func acquireSyncLock() throws(JournalMoveError) -> JournalLock {
        let acquired = try wrap { () throws(JournalError) in try tryLock(Self.syncLockName) }
        guard let acquired else { throw .busy(path: path) }
        return acquired
    }

    /// The target of a pending move, found at `targetPath`.
    private func openPendingTarget(_ intent: JournalMoveIntent, at targetPath: String) throws(JournalMoveError) -> Journal {
        guard intent.sourceID == id else {
            throw .journal(.untrusted(path: statePath(of: Self.moveIntentStateName), reason: "move intent of journal \(intent.sourceID), not \(id)"))
        }
        guard FileSystem.kind(targetPath + "/manifest.json") == .file else {
            throw .targetMissing(path: targetPath, intent: intent)
        }
        let target = try wrap { () throws(JournalError) in try Journal(path: targetPath) }
        guard target.id == intent.targetID else { throw .otherMovePending(intent) }
        return target
    }

    // MARK: - Target

    /// Opens the target journal, or creates it (empty directory or none) with a manifest
    /// that names this journal in `moved_from`.
    private func openMoveTarget(_ targetPath: String, now: Int64) throws(JournalMoveError) -> (journal: Journal, created: Bool) {
        if let source = FileSystem.realPath(path) {
            let destination = FileSystem.resolvedPath(targetPath)
            if destination == source || destination.hasPrefix(source + "/") { throw .sameJournal(path: targetPath) }
        }
        var created = false
        let manifestPath = targetPath + "/manifest.json"
        if FileSystem.kind(manifestPath) == .missing {
            switch FileSystem.kind(targetPath) {
            case .missing: break
            case .directory:
                let entries = (try? FileSystem.listDirectory(targetPath)) ?? []
                // Our own lock file may be all there is after a crash during creation.
                guard entries.allSatisfy({ $0 == "journal.lock" || $0 == "segments" || $0.hasPrefix(".tmp-") }) else {
                    throw .targetNotEmpty(path: targetPath)
                }
            case .symlink: throw .journal(.untrusted(path: targetPath, reason: "is a symbolic link"))
            default: throw .targetNotEmpty(path: targetPath)
            }
            try wrap { () throws(JournalError) in
                try FileSystem.makeDirectories(targetPath)
                let creationLock = try FileLock(path: targetPath + "/journal.lock", create: true)
                try creationLock.withLock(.exclusive) { () throws(JournalError) in
                    guard FileSystem.kind(manifestPath) == .missing else { return }
                    var manifest = JournalManifest(journalID: .random(), deviceID: self.manifest.deviceID, created: now).encoded
                    // The manifest's keys, then `moved_from` (readers ignore keys they do not know).
                    manifest.removeLast(2)
                    manifest += Array(",\"moved_from\":[\"\(id)\"]}\n".utf8)
                    try FileSystem.makeDirectory(targetPath + "/segments")
                    try FileSystem.replaceAtomically(manifestPath, with: manifest)
                    try FileSystem.syncDirectory(FileSystem.parentDirectory(of: targetPath))
                    created = true
                }
            }
        }
        let target = try wrap { () throws(JournalError) in try Journal(path: targetPath) }
        guard target.id != id else { throw .sameJournal(path: targetPath) }
        if try wrap({ () throws(JournalError) in try target.movedFrom() }) == nil {
            throw .notAMoveTarget(path: targetPath)
        }
        return (target, created)
    }

    /// The exclusive journal lock, held while a move writes into this journal (nil on
    /// read-only media, where nothing can be written anyway).
    fileprivate func exclusiveLock() throws(JournalError) -> FileLock? {
        try lock?.lock(.exclusive)
        return lock
    }

    /// The first sequence number a moved record may take here: past every record and the
    /// cursor. The caller holds the exclusive lock, so files are read without the shared one.
    fileprivate func nextMoveSequence() throws(JournalError) -> UInt64 {
        let names = try segments()
        var end = names.last?.firstSequence ?? 0
        for name in names.reversed() {
            let layout = try SegmentLayout(reading: SegmentFile(self, name, committed: false), name: name, journalID: id)
            if let last = layout.endSequence {
                end = max(end, last)
                break
            }
        }
        return max(end, try highestCursor())
    }

    // MARK: - Planning

    private struct MovePlan {
        var intent: JournalMoveIntent
        var truncated = false
        var stoppedAt: String?
    }

    /// The longest run of unsent segments, oldest first, that are sealed and intact: the
    /// cursor can only pass records in order, so the first segment that cannot move ends it.
    private func planMove(into target: Journal) throws(JournalError) -> MovePlan {
        let names = try segments()
        let cursor = try cursor()
        var next = try target.nextMoveSequence()
        var plan = MovePlan(intent: JournalMoveIntent(sourceID: id, targetID: target.id, targetPath: target.path, segments: []))
        for (index, name) in names.enumerated() {
            let limit = index + 1 < names.count ? names[index + 1].firstSequence : UInt64.max
            if limit <= cursor { continue }
            if plan.intent.segments.count == Self.maxSegmentsPerIntent {
                plan.truncated = true
                break
            }
            // Read a member at a time: planning costs a member's memory, whatever a segment's size.
            let file = try SegmentFile(self, name, committed: index == names.count - 1)
            let layout = try SegmentLayout(reading: file, name: name, journalID: id)
            guard layout.seal != nil else {
                plan.stoppedAt = layout.isDamaged
                    ? "segment \(name) is damaged: run 'overland journal repair', then move again"
                    : (index == names.count - 1
                        ? "segment \(name) is the active segment: seal it first (--seal)"
                        : "segment \(name) is not sealed: run 'overland journal repair', then move again")
                break
            }
            if let damage = try Self.firstDamagedMember(file, layout) {
                plan.stoppedAt = "segment \(name) is damaged at offset \(damage): run 'overland journal repair', then move again"
                break
            }
            let from = max(cursor, name.firstSequence)
            let end = min(layout.endSequence ?? name.firstSequence, limit)
            guard end > from else { continue }
            var records = 0
            for member in layout.members {
                let first = max(member.header.firstSequence, from)
                let last = min(member.header.endSequence, end)
                if last > first { records += Int(last - first) }
            }
            guard records > 0 else { continue }
            // Numbered from `next` in the target, the last record must stay below the limit
            // (a hostile target may claim numbers near 2^53): refuse before any intent.
            guard next <= SequenceNumber.limit, end - from <= SequenceNumber.limit - next else {
                throw .untrusted(path: target.segmentsPath, reason: "its records are numbered up to \(next): moving segment \(name) there would number records past the largest sequence number (2^53); move into another journal")
            }
            plan.intent.segments.append(.init(name: name, from: from, end: end, records: records, targetFirst: next))
            next += end - from
        }
        return plan
    }

    private static func firstDamagedMember(_ file: SegmentFile, _ layout: SegmentLayout) throws(JournalError) -> Int? {
        var memberBytes: [UInt8] = []
        var payload: [UInt8] = []
        for member in layout.members {
            try file.readMember(member, into: &memberBytes)
            if memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header, into: &payload) }) != nil {
                return member.offset
            }
        }
        return nil
    }

    // MARK: - Moving

    /// Carries out an intent, segment after segment (see the type's description).
    private func finishMove(_ start: JournalMoveIntent, into target: Journal, report: inout JournalMoveReport) throws(JournalMoveError) {
        var intent = start
        try wrap { () throws(JournalError) in try target.removeTemporarySegments() }
        var cursor = try wrap { () throws(JournalError) in try self.cursor() }
        var index = 0
        while index < intent.segments.count {
            let segment = intent.segments[index]
            if cursor >= segment.end {
                // Moved before an interruption; only the source file may be left.
                try wrap { () throws(JournalError) in try removeMovedSource(segment.name) }
                index += 1
                continue
            }
            var built = try wrap { () throws(JournalError) in try buildMovedSegment(segment, targetID: target.id) }
            var state = try wrap { () throws(JournalError) in try target.state(of: built) }
            switch state {
            case .absent, .foreign:
                // Another move may have written at or past the planned numbers since this
                // intent was made: renumber this segment and the rest after them. (Only the
                // segment in flight can be in the target; it is found whole or in part.)
                var next = try wrap { () throws(JournalError) in try target.nextMoveSequence() }
                if case .foreign = state { next = max(next, segment.targetFirst + 1) }
                if next > segment.targetFirst {
                    intent.renumber(from: index, at: next)
                    try wrap { () throws(JournalError) in try writeState(Self.moveIntentStateName, intent.encoded) }
                    built = try wrap { () throws(JournalError) in try buildMovedSegment(intent.segments[index], targetID: target.id) }
                    state = try wrap { () throws(JournalError) in try target.state(of: built) }
                }
            case .complete, .ours:
                break
            }
            switch state {
            case .complete:
                // Found whole in the target (written before an interruption): not written again.
                break
            case .absent, .ours:
                do {
                    try target.writeMovedSegment(built)
                } catch {
                    if case .beforeRename(let cause) = error, case .absent = state {
                        // Nothing of this segment reached the target: stop cleanly, every
                        // segment before it moved and every one after stays in the source.
                        try wrap { () throws(JournalError) in try removeState(Self.moveIntentStateName) }
                        report.remaining = intent.segments[index...].reduce(0) { $0 + $1.records }
                        throw .targetFailed(cause, report)
                    }
                    throw .journal(error.journalError)
                }
            case .foreign:
                throw .journal(.untrusted(path: target.segmentPath(built.name),
                                          reason: "holds other records where this move expected its own"))
            }
            if case .complete = state {} else {
                try wrap { () throws(JournalError) in try target.verifyMovedSegment(built) }
            }
            FaultPoint.reach("move.after-verify")
            try wrap { () throws(JournalError) in try advanceCursor(to: segment.end) }
            cursor = segment.end
            FaultPoint.reach("move.after-cursor")
            try wrap { () throws(JournalError) in try removeMovedSource(segment.name) }
            FaultPoint.reach("move.after-delete")
            report.add(built)
            index += 1
        }
        try wrap { () throws(JournalError) in try removeState(Self.moveIntentStateName) }
    }

    /// Deletes a source segment whose records the cursor has passed, durably.
    private func removeMovedSource(_ name: SegmentName) throws(JournalError) {
        let file = segmentPath(name)
        guard FileSystem.kind(file) != .missing else { return }
        try FileSystem.remove(file)
        try FileSystem.syncDirectory(segmentsPath)
    }

    private func removeTemporarySegments() throws(JournalError) {
        for fileName in try FileSystem.listDirectory(segmentsPath) where fileName.hasPrefix(".tmp-") {
            try FileSystem.remove(segmentsPath + "/" + fileName)
        }
    }

    /// The target segment for one planned source segment, checked by producing it once
    /// (members are read, inflated and written a member at a time: see `MovedSegment`).
    fileprivate func buildMovedSegment(_ segment: JournalMoveIntent.Segment, targetID: JournalID) throws(JournalError) -> MovedSegment {
        var built = MovedSegment(source: self, plan: segment, targetID: targetID)
        var bytes = 0
        built.records = try built.produce { (chunk: [UInt8]) throws(JournalError) in bytes += chunk.count }
        built.bytes = bytes
        return built
    }

    /// A member with its header's journal id and first sequence replaced and the header
    /// CRC16 recomputed; the compressed data and its CRC-32 are unchanged.
    static func restamp(_ member: ArraySlice<UInt8>, firstSequence: UInt64, journalID: JournalID) -> [UInt8] {
        var bytes = Array(member)
        for index in 0..<8 { bytes[24 + index] = UInt8(truncatingIfNeeded: firstSequence >> (8 * index)) }
        bytes.replaceSubrange(36..<52, with: journalID.bytes)
        let crc = bytes.withUnsafeBytes { Deflate.crc32(UnsafeRawBufferPointer(rebasing: $0[0..<52])) }
        bytes[52] = UInt8(truncatingIfNeeded: crc)
        bytes[53] = UInt8(truncatingIfNeeded: crc >> 8)
        return bytes
    }

    // MARK: - Writing and checking in the target

    fileprivate enum TargetState {
        /// No file of that name.
        case absent
        /// The file holds exactly the records meant (whatever its compression).
        case complete
        /// The file holds some of the records meant, or none, and nothing else: our own
        /// copy, damaged.
        case ours
        /// The file holds other records.
        case foreign
    }

    /// What the target holds under the name a moved segment would take.
    fileprivate func state(of segment: MovedSegment) throws(JournalError) -> TargetState {
        let path = segmentPath(segment.name)
        guard FileSystem.kind(path) != .missing else { return .absent }
        let file = try SegmentFile(self, segment.name, committed: false)
        if try segment.isWritten(in: file) { return .complete }
        let layout = try SegmentLayout(reading: file, name: segment.name, journalID: id)
        var expected = try segment.expectedRecords()
        var pending = try expected.next()
        var matched = 0
        var intact = layout.seal != nil && !layout.isDamaged
        var memberBytes: [UInt8] = []
        var payload: [UInt8] = []
        for member in layout.members {
            try file.readMember(member, into: &memberBytes)
            guard memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header, into: &payload) }) == nil else {
                intact = false
                continue
            }
            var sequence = member.header.firstSequence
            var lineStart = 0
            while lineStart < payload.count {
                let lineEnd = payload[lineStart...].firstIndex(of: UInt8(ascii: "\n"))!
                while let record = pending, record.sequence < sequence {
                    intact = false
                    pending = try expected.next()
                }
                guard let record = pending, record.sequence == sequence,
                      record.line.elementsEqual(payload[lineStart..<lineEnd]) else { return .foreign }
                matched += 1
                pending = try expected.next()
                sequence += 1
                lineStart = lineEnd + 1
            }
        }
        if intact && matched == segment.records { return .complete }
        // Nothing readable contradicts the plan: our own copy, damaged (or bytes nobody can
        // read, which lose nothing when replaced).
        return .ours
    }

    /// Writes a moved segment: temporary file, fsync, rename, directory fsync.
    fileprivate func writeMovedSegment(_ segment: MovedSegment) throws(MoveWriteError) {
        let temporary = segmentsPath + "/.tmp-" + segment.name.fileName
        do throws(JournalError) {
            try FileSystem.remove(temporary)
            let fd = try FileSystem.createExclusive(temporary)
            do {
                // Written a member at a time, as it is produced from the source.
                _ = try segment.produce { (chunk: [UInt8]) throws(JournalError) in try FileSystem.writeAll(fd, chunk, path: temporary) }
                try FileSystem.sync(fd, path: temporary)
            } catch {
                close(fd)
                try? FileSystem.remove(temporary)
                throw error
            }
            close(fd)
        } catch {
            throw .beforeRename(error)
        }
        FaultPoint.reach("move.after-write")
        do throws(JournalError) {
            try FileSystem.rename(temporary, segmentPath(segment.name))
            try FileSystem.syncDirectory(segmentsPath)
        } catch {
            throw .afterRename(error)
        }
        FaultPoint.reach("move.after-copy")
    }

    /// Reads a moved segment back from the medium (its cached pages dropped first) and
    /// checks that it is sealed, that every member inflates and that it holds exactly the
    /// records meant.
    fileprivate func verifyMovedSegment(_ segment: MovedSegment) throws(JournalError) {
        let path = segmentPath(segment.name)
        let file = try SegmentFile(self, segment.name, committed: false)
        _ = posix_fadvise(file.descriptor, 0, 0, POSIX_FADV_DONTNEED)
        guard try segment.isWritten(in: file) else {
            throw .io(operation: "cannot verify", path: path, reason: "the copy read back differs from what was written", code: EIO)
        }
        let layout = try SegmentLayout(reading: file, name: segment.name, journalID: id)
        guard layout.seal != nil, !layout.isDamaged, layout.recordCount == segment.records,
              try Self.firstDamagedMember(file, layout) == nil else {
            throw .io(operation: "cannot verify", path: path, reason: "the copy read back is not an intact sealed segment", code: EIO)
        }
    }
}

/// A segment as it is written into the target. It is never held whole: each use produces
/// it again from the source segment, a member at a time: members wholly inside the moved
/// range are re-stamped (journal id, first sequence, header CRC16) and keep their
/// compressed data; a member the cursor cuts is recompressed with its unsent records. The
/// output is the same at every pass (the source is sealed and the move holds its locks).
struct MovedSegment {
    let source: Journal
    let plan: JournalMoveIntent.Segment
    let targetID: JournalID
    /// Bytes and records of the segment (set by `Journal.buildMovedSegment`).
    var bytes = 0
    var records = 0

    var name: SegmentName { SegmentName(firstSequence: plan.targetFirst) }

    init(source: Journal, plan: JournalMoveIntent.Segment, targetID: JournalID) {
        self.source = source
        self.plan = plan
        self.targetID = targetID
    }

    /// The source members with records in the moved range, read one at a time.
    final class Members {
        let segment: MovedSegment
        let file: SegmentFile
        let layout: SegmentLayout
        let seal: MemberHeader
        private var index = 0
        private var memberBytes: [UInt8] = []
        /// The lines of the current member (newline-terminated).
        private(set) var payload: [UInt8] = []

        init(_ segment: MovedSegment) throws(JournalError) {
            self.segment = segment
            file = try SegmentFile(segment.source, segment.plan.name, committed: false)
            layout = try SegmentLayout(reading: file, name: segment.plan.name, journalID: segment.source.id)
            guard let seal = layout.seal, !layout.isDamaged else {
                throw .untrusted(path: file.path, reason: "segment of a pending move is no longer sealed and intact")
            }
            self.seal = seal
        }

        /// The next member with records to move: its header, and the range of `payload` from
        /// the first moved line to the end of the last, with their source sequence numbers.
        func next() throws(JournalError) -> (member: SegmentLayout.Located, lines: Range<Int>, first: UInt64, count: Int)? {
            let plan = segment.plan
            while index < layout.members.count {
                let member = layout.members[index]
                index += 1
                let first = member.header.firstSequence
                guard member.header.endSequence > plan.from, first < plan.end else { continue }
                try file.readMember(member, into: &memberBytes)
                if memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header, into: &payload) }) != nil {
                    throw .untrusted(path: file.path, reason: "damaged member at offset \(member.offset)")
                }
                var lineStart = 0
                var sequence = first
                var kept: Range<Int>?
                var keptFirst = first
                var keptCount = 0
                while lineStart < payload.count {
                    let lineEnd = payload[lineStart...].firstIndex(of: UInt8(ascii: "\n"))! + 1
                    if sequence >= plan.from && sequence < plan.end {
                        if kept == nil { keptFirst = sequence }
                        kept = (kept?.lowerBound ?? lineStart)..<lineEnd
                        keptCount += 1
                    }
                    sequence += 1
                    lineStart = lineEnd
                }
                guard let kept else { continue }
                return (member, kept, keptFirst, keptCount)
            }
            return nil
        }

        /// The current member as it goes into the target.
        func targetBytes(_ member: SegmentLayout.Located, lines: Range<Int>, first: UInt64, count: Int) -> [UInt8] {
            let offset = segment.plan.targetFirst &- segment.plan.from
            if first == member.header.firstSequence && count == member.header.recordCount {
                return Journal.restamp(memberBytes[...], firstSequence: first &+ offset, journalID: segment.targetID)
            }
            return payload.withUnsafeBytes {
                Member.encode(kind: .records, payload: UnsafeRawBufferPointer(rebasing: $0[lines]), firstSequence: first &+ offset,
                              recordCount: count, journalID: segment.targetID, writtenAt: member.header.writtenAt, level: 9)
            }
        }
    }

    /// Produces the segment's bytes into `output`, a member at a time; returns its record
    /// count, checked against the plan.
    @discardableResult
    func produce(_ output: ([UInt8]) throws(JournalError) -> Void) throws(JournalError) -> Int {
        let members = try Members(self)
        var records = 0
        while let next = try members.next() {
            try output(members.targetBytes(next.member, lines: next.lines, first: next.first, count: next.count))
            records += next.count
        }
        guard records == plan.records else {
            throw .untrusted(path: members.file.path, reason: "holds \(records) records to move where the move planned \(plan.records)")
        }
        try output(Member.encode(kind: .seal, payload: [], firstSequence: plan.targetFirst, recordCount: records,
                                 journalID: targetID, writtenAt: members.seal.writtenAt, level: 9))
        return records
    }

    /// Whether `file` holds exactly this segment's bytes (compared a member at a time).
    func isWritten(in file: SegmentFile) throws(JournalError) -> Bool {
        guard file.count == bytes else { return false }
        var offset = 0
        var same = true
        try produce { (chunk: [UInt8]) throws(JournalError) in
            guard same else { return }
            same = offset + chunk.count <= file.count && file.withBytes(offset..<(offset + chunk.count)) { window in
                window.count == chunk.count && chunk.withUnsafeBytes { memcmp(window.baseAddress!, $0.baseAddress!, chunk.count) == 0 }
            }
            offset += chunk.count
        }
        if let error = file.readError { throw error }
        return same && offset == file.count
    }

    /// The records the segment must hold, in order, with their target sequence numbers.
    func expectedRecords() throws(JournalError) -> Records { try Records(self) }

    struct Records {
        private let members: Members
        private let offset: UInt64
        private var lines: Range<Int> = 0..<0
        private var sequence: UInt64 = 0

        init(_ segment: MovedSegment) throws(JournalError) {
            members = try Members(segment)
            offset = segment.plan.targetFirst &- segment.plan.from
        }

        mutating func next() throws(JournalError) -> (sequence: UInt64, line: ArraySlice<UInt8>)? {
            while lines.isEmpty {
                guard let next = try members.next() else { return nil }
                lines = next.lines
                sequence = next.first
            }
            let payload = members.payload
            let lineEnd = payload[lines].firstIndex(of: UInt8(ascii: "\n"))!
            defer {
                lines = (lineEnd + 1)..<lines.upperBound
                sequence += 1
            }
            return (sequence &+ offset, payload[lines.lowerBound..<lineEnd])
        }
    }
}

enum MoveWriteError: Error {
    /// Nothing was renamed: the target holds no part of the segment.
    case beforeRename(JournalError)
    /// The rename or the directory sync failed: the segment may be there.
    case afterRename(JournalError)

    var journalError: JournalError {
        switch self {
        case .beforeRename(let error), .afterRename(let error): return error
        }
    }
}

/// What a move did.
public struct JournalMoveReport: Sendable, Equatable {
    public var targetID: JournalID
    public var targetPath: String
    /// The target journal was created by this run.
    public var targetCreated = false
    /// An interrupted move was found and finished first.
    public var resumed = false
    /// Segments and records now in the target and gone from the source.
    public var segments = 0
    public var records: UInt64 = 0
    /// Bytes written to the target.
    public var bytes = 0
    /// Unsent records that stayed in the source after a failure in the target.
    public var remaining = 0
    /// Why the move stopped before reaching the newest segment, if something stopped it.
    public var stoppedAt: String?
    /// Where an abort put an intent it could not read.
    public var intentSetAside: String?

    public init(targetID: JournalID, targetPath: String) {
        self.targetID = targetID
        self.targetPath = targetPath
    }

    mutating func add(_ segment: MovedSegment) {
        segments += 1
        records += UInt64(segment.records)
        bytes += segment.bytes
    }
}

/// Why a move did not complete.
public enum JournalMoveError: Error, Sendable, CustomStringConvertible {
    /// A sync or another move of the source runs now.
    case busy(path: String)
    /// An interrupted move waits for its target, which is not at the path given.
    case targetMissing(path: String, intent: JournalMoveIntent)
    /// An interrupted move to another target must be finished or aborted first.
    case otherMovePending(JournalMoveIntent)
    /// `--abort` with no move pending.
    case noPendingMove
    /// The target directory holds other files and no journal.
    case targetNotEmpty(path: String)
    /// The target is a journal that `move` did not create (a logger's own journal, say).
    case notAMoveTarget(path: String)
    /// The target is the source, or inside it.
    case sameJournal(path: String)
    /// Writing a segment into the target failed before anything of it was there (the
    /// target is full, say): every earlier segment moved, the rest stayed, no move pending.
    case targetFailed(JournalError, JournalMoveReport)
    /// Anything else, with the journal's own error.
    case journal(JournalError)

    public var description: String {
        switch self {
        case .busy:
            return "a sync or a move of this journal is running; try again when it ends"
        case .targetMissing(let path, let intent):
            return "an interrupted move to journal \(intent.targetID) is pending, and '\(path)' does not hold it: "
                + "plug the target in and run the move again with --to pointing at it (last seen at '\(intent.targetPath)'), "
                + "or give it up with --abort"
        case .otherMovePending(let intent):
            return "an interrupted move to journal \(intent.targetID) at '\(intent.targetPath)' is pending: "
                + "finish it first (--to '\(intent.targetPath)') or give it up with --abort"
        case .noPendingMove:
            return "no interrupted move to abort"
        case .targetNotEmpty(let path):
            return "'\(path)' holds other files and is not a journal: give an empty or new directory, e.g. '\(path)/overland'"
        case .notAMoveTarget(let path):
            return "'\(path)' is a journal that 'overland journal move' did not create; refusing to move records into it"
        case .sameJournal(let path):
            return "'\(path)' is the journal being moved, or inside it"
        case .targetFailed(let error, let report):
            return "\(error); \(report.segments) segments (\(report.records) records) moved, "
                + "\(report.remaining) records that were to move stay in the source journal; free space and run the move again"
        case .journal(let error):
            return error.description
        }
    }
}

/// The plan of a move in flight, kept in the source's `state/move.json`.
public struct JournalMoveIntent: Sendable, Equatable, CustomStringConvertible {
    /// One source segment to move.
    public struct Segment: Sendable, Equatable {
        /// The source segment.
        public var name: SegmentName
        /// The first source sequence number moved (the cursor, inside a partly sent segment).
        public var from: UInt64
        /// One past the last source sequence number moved.
        public var end: UInt64
        /// Records moved.
        public var records: Int
        /// The target sequence number of `from`; the others follow at the same distance.
        public var targetFirst: UInt64

        public init(name: SegmentName, from: UInt64, end: UInt64, records: Int, targetFirst: UInt64) {
            self.name = name
            self.from = from
            self.end = end
            self.records = records
            self.targetFirst = targetFirst
        }
    }

    public var sourceID: JournalID
    public var targetID: JournalID
    /// Where the target was when the move began (a hint: the stick may come back elsewhere).
    public var targetPath: String
    public var segments: [Segment]

    public init(sourceID: JournalID, targetID: JournalID, targetPath: String, segments: [Segment]) {
        self.sourceID = sourceID
        self.targetID = targetID
        self.targetPath = targetPath
        self.segments = segments
    }

    public var description: String {
        "an interrupted move to journal \(targetID) at '\(targetPath)' is pending; "
            + "run 'overland journal move --to \(targetPath)' to finish it (or --abort)"
    }

    /// Gives the segments from `index` on new target numbers starting at `next`.
    mutating func renumber(from index: Int, at next: UInt64) {
        var first = next
        for position in index..<segments.count {
            segments[position].targetFirst = first
            first += segments[position].end - segments[position].from
        }
    }

    var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.appendRaw("{\"version\":1,\"source_journal_id\":" as StaticString)
        writer.appendString(sourceID.description)
        writer.appendRaw(",\"target_journal_id\":" as StaticString)
        writer.appendString(targetID.description)
        writer.appendRaw(",\"target\":" as StaticString)
        writer.appendString(targetPath)
        writer.appendRaw(",\"segments\":[" as StaticString)
        for (index, segment) in segments.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendRaw("{\"name\":" as StaticString)
            writer.appendString(segment.name.fileName)
            for (key, value) in [("from", segment.from), ("end", segment.end), ("records", UInt64(segment.records)),
                                 ("target_first", segment.targetFirst)] {
                writer.appendRaw(",\"\(key)\":".utf8)
                writer.appendInteger(Int64(value))
            }
            writer.appendRaw("}")
        }
        writer.appendRaw("]}\n" as StaticString)
        return writer.bytes
    }

    init(parsing bytes: [UInt8], path: String) throws(JournalError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 4, maxBytes: Journal.maxStateFileBytes))
        } catch {
            throw .untrusted(path: path, reason: "move intent is not JSON (\(error))")
        }
        guard value["version"]?.int == 1,
              let source = value["source_journal_id"]?.string.flatMap(JournalID.init(hex:)),
              let target = value["target_journal_id"]?.string.flatMap(JournalID.init(hex:)),
              let targetPath = value["target"]?.string,
              let list = value["segments"]?.array else {
            throw .untrusted(path: path, reason: "move intent lacks its keys")
        }
        func number(_ item: JSONValue, _ key: String) -> UInt64? {
            guard let number = item[key]?.double, SequenceNumber.isValidEnd(number) else { return nil }
            return UInt64(number)
        }
        var segments: [Segment] = []
        for item in list {
            guard let name = item["name"]?.string.flatMap(SegmentName.init(fileName:)),
                  let from = number(item, "from"), let end = number(item, "end"), let records = number(item, "records"),
                  let targetFirst = number(item, "target_first"), end > from, from >= name.firstSequence,
                  targetFirst + (end - from) <= SequenceNumber.limit else {
                throw .untrusted(path: path, reason: "move intent has a malformed segment entry")
            }
            segments.append(Segment(name: name, from: from, end: end, records: Int(records), targetFirst: targetFirst))
        }
        self.init(sourceID: source, targetID: target, targetPath: targetPath, segments: segments)
    }
}

/// Runs a journal operation inside a move, wrapping its error.
private func wrap<T>(_ body: () throws(JournalError) -> T) throws(JournalMoveError) -> T {
    do {
        return try body()
    } catch {
        throw .journal(error)
    }
}

extension FileSystem {
    /// The canonical absolute path (symlinks resolved), or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(decoding: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)), as: UTF8.self)
    }

    /// The canonical path of `path` even where its last components do not exist yet: the
    /// longest existing prefix resolved, the rest appended.
    static func resolvedPath(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while realPath(existing) == nil, existing != "/", existing != "." {
            rest.insert(baseName(of: existing), at: 0)
            existing = parentDirectory(of: existing)
        }
        let base = realPath(existing) ?? existing
        return ([base == "/" ? "" : base] + rest).joined(separator: "/")
    }
}

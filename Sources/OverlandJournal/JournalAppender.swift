#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Appends records to a journal. Records wait in memory until `commit()`, which writes them
/// as one gzip member (or a few, when large) and fsyncs, under the journal's lock: several
/// processes may append to one journal at once without interleaving.
///
/// Opening an appender recovers the journal: it cuts a torn tail off the newest segment,
/// seals older segments left unsealed, and sets damaged ones aside.
///
/// A bulk writer (an import of old captures) may use `commitInBackground()`, which
/// compresses, writes and fsyncs on a second thread while the caller goes on encoding.
public final class JournalAppender {
    public let journal: Journal
    /// Changing the policy waits for a background commit first: that thread reads it.
    public var policy: JournalPolicy {
        get { currentPolicy }
        set { joinBackgroundCommit(); currentPolicy = newValue }
    }
    private var currentPolicy: JournalPolicy
    static let maxMemberPayload = 256 << 10
    private let onIssue: JournalIssueHandler?
    private let lock: FileLock
    private var fs: any FileSystem { journal.fileSystem }

    private struct Active {
        var name: SegmentName
        var fileSize: Int
        var payloadBytes: Int
        var recordCount: Int
        /// True while every member is large (`largeMemberBytes`): sealing then has nothing
        /// to recompress and appends the seal in place.
        var membersAreLarge: Bool
        var createdAt: Int64
        /// A seal renames a new file over the name: the inode tells it from the file this
        /// appender wrote even when the sizes happen to match.
        var inode: UInt64
    }

    /// The newest segment, while it is unsealed and trusted: every member in it was
    /// written by this appender or checked by its recovery.
    private var active: Active?
    /// One past the newest record as last seen under the lock.
    private var endSequence: UInt64 = 0
    /// Set after a failed write: the next commit starts a new segment.
    private var distrustActive = false

    /// Newline-terminated records waiting for a commit.
    private struct Batch {
        var bytes: [UInt8] = []
        var lineEnds: [Int] = []
        var since: Double?

        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            lineEnds.removeAll(keepingCapacity: true)
            since = nil
        }

        /// Puts `earlier`'s records in front of these.
        mutating func prepend(_ earlier: Batch) {
            lineEnds = earlier.lineEnds + lineEnds.map { $0 + earlier.bytes.count }
            bytes = earlier.bytes + bytes
            since = earlier.since ?? since
        }
    }

    private var pending = Batch()

    /// A commit running on the worker thread, and what it is writing. While it runs, that
    /// thread alone touches the segment state above (`active`, `endSequence`,
    /// `distrustActive`); this one touches only `pending`.
    private final class BackgroundCommit {
        var batch: Batch
        var failure: JournalError?
        init(batch: Batch) { self.batch = batch }
    }
    private var background: BackgroundCommit?
    /// The failure of a background commit joined without reporting it (a policy change).
    private var unreportedFailure: JournalError?
    private lazy var worker = WorkerThread()
    /// A batch's storage, kept for the next background commit.
    private var spare = Batch()

    /// Records waiting for a commit (not counting those of a background commit).
    public var pendingRecords: Int { pending.lineEnds.count }
    /// Bytes of records waiting for a commit.
    public var pendingBytes: Int { pending.bytes.count }

    public init(journal: Journal, policy: JournalPolicy = JournalPolicy(), onIssue: JournalIssueHandler? = nil) throws(JournalError) {
        self.journal = journal
        self.currentPolicy = policy
        self.onIssue = onIssue
        guard let lock = journal.lock else {
            throw .io(operation: "cannot lock", path: journal.path + "/journal.lock", reason: "read-only journal", code: EROFS)
        }
        self.lock = lock
        // On read-only media a writer would only learn so at its first commit (a live
        // logger would then hold its points in memory for ever): refuse at once.
        try journal.requireWritable(journal.segmentsPath)
        try lock.withLock(.exclusive) { () throws(JournalError) in try recover(all: true) }
    }

    deinit {
        // Never leave a thread writing to a journal nobody holds.
        joinBackgroundCommit()
    }

    // MARK: - Appending

    /// Buffers one record: a JSON object on one line, without the newline. `checkJSON`
    /// false skips the JSON check (not the size and newline checks) for records written by
    /// this package's own encoders, whose output their tests prove valid.
    public func append(_ line: some Collection<UInt8>, checkJSON: Bool = true, now: Double = monotonicSeconds()) throws(JournalError) {
        // Made contiguous first: a generic copy from another module goes byte by byte.
        let appendBytes = { (bytes: UnsafeRawBufferPointer) in
            Result { () throws(JournalError) in try self.append(bytes, checkJSON: checkJSON, now: now) }
        }
        let outcome = line.withContiguousStorageIfAvailable { appendBytes(UnsafeRawBufferPointer($0)) }
            ?? Array(line).withUnsafeBytes(appendBytes)
        try outcome.get()
    }

    /// Buffers one record held in contiguous memory (see the generic `append`).
    public func append(_ line: UnsafeRawBufferPointer, checkJSON: Bool = true, now: Double = monotonicSeconds()) throws(JournalError) {
        let start = pending.bytes.count
        pending.bytes.append(contentsOf: line)
        let problem = pending.bytes.withUnsafeBytes {
            RecordLine.problem(with: UnsafeRawBufferPointer(rebasing: $0[start...]), checkJSON: checkJSON)
        }
        if let problem {
            pending.bytes.removeSubrange(start...)
            throw .invalidRecord(reason: problem)
        }
        pending.bytes.append(UInt8(ascii: "\n"))
        pending.lineEnds.append(pending.bytes.count)
        if pending.since == nil { pending.since = now }
    }

    /// True when the policy says the waiting records should be committed now; `bulk` for a
    /// bulk import (``JournalPolicy/bulkCommitBytes``).
    public func commitIsDue(now: Double = monotonicSeconds(), bulk: Bool = false) -> Bool {
        guard let since = pending.since else { return false }
        let bytes = bulk ? currentPolicy.bulkCommitBytes : currentPolicy.commitBytes
        return pending.bytes.count >= bytes || now - since >= currentPolicy.commitInterval
    }

    /// Seconds until a commit is due (nil when nothing waits).
    public func secondsUntilCommit(now: Double = monotonicSeconds()) -> Double? {
        guard let since = pending.since else { return nil }
        return max(0, since + currentPolicy.commitInterval - now)
    }

    /// Writes and fsyncs the waiting records (after waiting for a background commit, whose
    /// records it writes again if that one failed). On success they are durable and
    /// readable; on failure they stay waiting, and the next commit writes them to a new
    /// segment (a failed fsync is never retried on the same file).
    @discardableResult
    public func commit(wallClock: Int64 = Journal.currentTime()) throws(JournalError) -> Int {
        finishBackgroundCommit()
        guard !pending.lineEnds.isEmpty else { return 0 }
        let count = pending.lineEnds.count
        try commitLocked(pending, wallClock: wallClock)
        pending.removeAll()
        return count
    }

    /// Hands the waiting records to a thread that commits them, and returns at once: the
    /// caller goes on appending while they are compressed, written and fsynced. They are
    /// durable only once `finishBackgroundCommit()` (or any commit or seal) has returned
    /// without a failure. Waits first for the previous background commit: if that one
    /// failed, throws its failure and starts nothing (its records are waiting again).
    public func commitInBackground(wallClock: Int64 = Journal.currentTime()) throws(JournalError) {
        if let failure = finishBackgroundCommit() { throw failure }
        guard !pending.lineEnds.isEmpty else { return }
        let job = BackgroundCommit(batch: pending)
        pending = spare
        spare = Batch()
        background = job
        // Unowned: the appender never goes before the job, since its deinit waits for it;
        // a strong reference would let the last release (and the deinit) happen on the worker.
        worker.submit { [unowned(unsafe) self] in
            do throws(JournalError) { try commitLocked(job.batch, wallClock: wallClock) } catch { job.failure = error }
        }
    }

    /// Waits for the background commit, if one runs. Returns its failure, if it failed:
    /// its records are then waiting again, ahead of those appended since.
    @discardableResult
    public func finishBackgroundCommit() -> JournalError? {
        joinBackgroundCommit()
        defer { unreportedFailure = nil }
        return unreportedFailure
    }

    /// Waits for the background commit; a failure is kept for `finishBackgroundCommit()`.
    private func joinBackgroundCommit() {
        guard let job = background else { return }
        worker.wait()
        background = nil
        if let failure = job.failure {
            pending.prepend(job.batch)
            unreportedFailure = failure
        } else {
            spare = job.batch
            spare.removeAll()
        }
    }

    /// Commits, then seals the active segment if it is due by size or age.
    public func sealIfDue(wallClock: Int64 = Journal.currentTime()) throws(JournalError) {
        try commit(wallClock: wallClock)
        guard let current = active, rotationIsDue(current, wallClock: wallClock) else { return }
        try sealActive()
    }

    /// Commits, then seals the active segment whatever its size or age.
    public func sealActive() throws(JournalError) {
        try commit()
        try lock.withLock(.exclusive) { () throws(JournalError) in
            try recover(all: false)
            if let current = active {
                try seal(active: current)
                active = nil
            }
        }
    }

    func lockedRepair() throws(JournalError) -> Int {
        try lock.withLock(.exclusive) { () throws(JournalError) -> Int in
            try recover(all: true)
            let names = try journal.segments()
            var repaired = 0
            var memberBytes: [UInt8] = []
            var payload: [UInt8] = []
            for (index, name) in names.enumerated() {
                // Read a member at a time: a segment costs a member's memory, whatever its size.
                let file = try SegmentFile(journal, name, committed: false)
                let layout = try SegmentLayout(reading: file, name: name, journalID: journal.id)
                var damaged = layout.isDamaged
                for member in file.members(name: name, journalID: journal.id) where !damaged {
                    try file.readMember(member, into: &memberBytes)
                    if memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header, into: &payload) }) != nil {
                        damaged = true
                    }
                }
                guard damaged else { continue }
                try seal(name, cutAt: index + 1 < names.count ? names[index + 1].firstSequence : nil)
                if active?.name == name { active = nil }
                repaired += 1
            }
            return repaired
        }
    }

    /// A commit, under the lock: recovery, a seal when one is due, then the batch's members.
    private func commitLocked(_ batch: Batch, wallClock: Int64) throws(JournalError) {
        try lock.withLock(.exclusive) { () throws(JournalError) in
            try recover(all: false)
            endSequence = max(endSequence, try journal.highestCursor())
            if let current = active, rotationIsDue(current, wallClock: wallClock) {
                try seal(active: current)
                active = nil
            }
            try write(batch, wallClock: wallClock)
        }
    }

    /// A member this large is kept as it is when its segment is sealed: recompressing it
    /// would cost a deflate pass for a few bytes (deflate's window is 32 KiB).
    private var largeMemberBytes: Int { currentPolicy.sealedMemberBytes / 4 }

    private func rotationIsDue(_ segment: Active, wallClock: Int64) -> Bool {
        segment.payloadBytes >= currentPolicy.segmentMaxBytes
            || wallClock - segment.createdAt >= currentPolicy.segmentMaxAge
            || segment.createdAt - wallClock > 3600 // the clock went back a long way
    }

    /// Compresses `batch` into members and appends them to the active segment, or writes
    /// them as a new segment.
    private func write(_ batch: Batch, wallClock: Int64) throws(JournalError) {
        // Records numbered past the limit would be skipped by every reader: refuse them,
        // and keep them waiting, rather than report them logged.
        guard endSequence <= SequenceNumber.limit, UInt64(batch.lineEnds.count) <= SequenceNumber.limit - endSequence else {
            throw .full(path: journal.path, next: endSequence)
        }
        // Members stay well under the readers' limit, whatever the commit size, and are of
        // about equal size: a commit due at 256 KiB that holds 300 makes two of 150, not one
        // of 256 and a small one that sealing would have to recompress.
        let memberLimit = min(currentPolicy.commitBytes, Self.maxMemberPayload)
        let lineEnds = batch.lineEnds
        // (Planned with 1/16 to spare, so that the line after a boundary still fits.)
        let total = batch.bytes.count
        let planned = max(1, (total + memberLimit - memberLimit / 16 - 1) / (memberLimit - memberLimit / 16))
        var members: [UInt8] = []
        var start = 0
        var first = endSequence
        var index = 0
        var made = 0
        var allLarge = true
        while index < lineEnds.count {
            made += 1
            // End at the last line before the member's share of the whole, within the limit.
            let share = made < planned ? total * made / planned - start : memberLimit
            let limit = min(max(share, 0), memberLimit)
            var end = index
            while end + 1 < lineEnds.count && lineEnds[end + 1] - start <= limit { end += 1 }
            let stop = lineEnds[end]
            let recordCount = end - index + 1
            if stop - start < largeMemberBytes { allLarge = false }
            members += batch.bytes.withUnsafeBytes {
                Member.encode(kind: .records, payload: UnsafeRawBufferPointer(rebasing: $0[start..<stop]), firstSequence: first,
                              recordCount: recordCount, journalID: journal.id,
                              writtenAt: UInt32(truncatingIfNeeded: max(wallClock, 0)), level: currentPolicy.commitLevel)
            }
            first += UInt64(recordCount)
            start = stop
            index = end + 1
        }
        if var current = active, !distrustActive {
            try appendDurably(members, to: current, faultPrefix: "append")
            current.fileSize += members.count
            current.payloadBytes += batch.bytes.count
            current.recordCount += lineEnds.count
            current.membersAreLarge = current.membersAreLarge && allLarge
            active = current
        } else {
            let name = SegmentName(firstSequence: endSequence)
            let path = journal.segmentPath(name)
            // A new segment appears whole or not at all: it is written beside, then renamed.
            do {
                try fs.replaceAtomically(path, with: members, faultPrefix: "segment")
            } catch {
                // Renamed, its directory's fsync failed: its name may never reach the disk.
                // Never appended to (a commit there would be durable in a file a power cut
                // can take away): the next commit writes a new segment, whose directory
                // fsync makes this name durable too.
                distrustActive = true
                throw error
            }
            distrustActive = false
            active = Active(name: name, fileSize: members.count, payloadBytes: batch.bytes.count, recordCount: lineEnds.count,
                            membersAreLarge: allLarge, createdAt: wallClock, inode: try identity(of: path).inode)
        }
        endSequence = first
    }

    // MARK: - Recovery

    /// Brings the in-memory view up to date with the files, repairing what a crash left.
    /// Runs under the exclusive lock. With `all`, also seals every older unsealed segment.
    private func recover(all: Bool) throws(JournalError) {
        let names = try journal.segments(onIssue: all ? onIssue : nil)
        if all { try removeTemporaryFiles() }
        guard let last = names.last else {
            active = nil
            return
        }
        if all {
            for (index, name) in names.enumerated().dropLast() where !(try journal.isSealed(name)) {
                try seal(name, cutAt: names[index + 1].firstSequence)
            }
        }
        if !distrustActive, let current = active, current.name == last {
            let identity = try identity(of: journal.segmentPath(last))
            if identity.size == current.fileSize && identity.inode == current.inode { return }
        }
        // Someone else appended, sealed or crashed: read the newest segment again.
        endSequence = max(endSequence, last.firstSequence)
        // Read a member at a time: a hostile 255 MiB segment costs what a small one does.
        let file = try SegmentFile(journal, last, committed: false)
        try adopt(try TailScan(file, last, journal: journal, largeMemberBytes: largeMemberBytes), of: last, file: file)
    }

    /// Takes what a scan of the newest segment found: a damaged segment is set aside, a torn
    /// tail cut, and the rest becomes the active segment (or none, when it is sealed or this
    /// appender distrusts what it wrote).
    private func adopt(_ scan: TailScan, of last: SegmentName, file: SegmentFile) throws(JournalError) {
        let damaged = scan.endsWithSeal || scan.foreign ? scan.anyProblem : scan.problemBeforeIntact
        if let end = damaged ? scan.lastEndSequence : scan.intactEndSequence { endSequence = max(endSequence, end) }
        if damaged {
            // A sealed segment with a member that does not inflate is damaged too, and is
            // set aside like any other.
            try seal(last, cutAt: nil)
            active = nil
        } else if scan.endsWithSeal || distrustActive {
            // After a failed write or sync this appender trusts nothing it wrote to that
            // file: the waiting records go to a new segment after whatever is there now
            // (what another appender committed meanwhile included).
            active = nil
        } else {
            if scan.intactEnd < file.count {
                try cutTail(of: last, file: file, at: scan.intactEnd, reason: scan.problemAfterIntact ?? "unfinished write")
            }
            if let createdAt = scan.createdAt, scan.intactEndSequence != nil {
                active = Active(name: last, fileSize: scan.intactEnd, payloadBytes: scan.payloadBytes,
                                recordCount: scan.intactRecords,
                                membersAreLarge: scan.smallMembers == 0,
                                createdAt: createdAt,
                                inode: try identity(of: journal.segmentPath(last)).inode)
            } else {
                active = nil
            }
        }
    }

    /// Size and inode of a segment file.
    private func identity(of path: String) throws(JournalError) -> (size: Int, inode: UInt64) {
        let fd = try fs.openForReading(path)
        defer { fs.close(fd) }
        return (try fs.size(fd, path: path), try fs.identity(fd, path: path).inode)
    }

    private func removeTemporaryFiles() throws(JournalError) {
        for fileName in try fs.listDirectory(journal.segmentsPath) where fileName.hasPrefix(".tmp-") {
            try fs.remove(journal.segmentsPath + "/" + fileName)
        }
    }

    /// Cuts the unfinished write off the end of the newest segment, keeping a copy of the
    /// cut bytes in `damaged/` unless they are only zeros.
    private func cutTail(of name: SegmentName, file: SegmentFile, at validEnd: Int, reason: String) throws(JournalError) {
        let path = journal.segmentPath(name)
        let tail = validEnd..<file.count
        let zeros = SegmentLayout.isZero(file, tail)
        // A read that failed is not taken for zeros: nothing is cut unless it is kept.
        if let error = file.readError { throw error }
        if !zeros {
            try keepDamaged(file, tail, as: name.fileName + ".tail-\(validEnd)")
        }
        if validEnd == 0 {
            try fs.remove(path)
            try fs.syncDirectory(journal.segmentsPath)
        } else {
            let fd = try fs.openForWriting(path)
            defer { fs.close(fd) }
            try fs.truncate(fd, to: validEnd, path: path)
            try fs.sync(fd, path: path)
        }
        onIssue?(JournalIssue(kind: .tornTailRepaired, file: "segments/" + name.fileName, offset: validEnd,
                              length: file.count - validEnd, reason: reason))
    }

    /// Keeps a copy of the damaged bytes `range` of `file` in `damaged/` (copied a window at
    /// a time); returns its name there.
    @discardableResult
    private func keepDamaged(_ file: SegmentFile, _ range: Range<Int>, as fileName: String) throws(JournalError) -> String {
        try fs.makeDirectory(journal.damagedPath)
        let keptName = fileName + "-\(Journal.currentTime())"
        let path = journal.damagedPath + "/" + keptName
        try fs.remove(path)
        let fd = try fs.createExclusive(path)
        defer { fs.close(fd) }
        try file.copy(range, to: fd, path: path)
        try fs.sync(fd, path: path)
        try fs.syncDirectory(journal.damagedPath)
        return keptName
    }

    // MARK: - Sealing

    /// Seals the active segment, every member of which this appender wrote or checked. When
    /// they are all large (a bulk import), a rewrite would copy them unchanged: the seal
    /// member is appended in place instead, like a commit. Otherwise the segment is
    /// rewritten, without checking each record again.
    private func seal(active segment: Active) throws(JournalError) {
        guard segment.membersAreLarge, !distrustActive else {
            return try seal(segment.name, cutAt: nil, trusted: true)
        }
        let member = Member.encode(kind: .seal, payload: [], firstSequence: segment.name.firstSequence,
                                   recordCount: segment.recordCount, journalID: journal.id,
                                   writtenAt: UInt32(truncatingIfNeeded: max(Journal.currentTime(), 0)), level: currentPolicy.sealLevel)
        try appendDurably(member, to: segment, faultPrefix: "seal")
    }

    /// Appends `bytes` to the active segment and fsyncs it (fault points `PREFIX.after-write`
    /// and `PREFIX.after-sync`). On failure, takes back what may have been written; either
    /// way the file is not trusted again: the next commit starts a new segment.
    private func appendDurably(_ bytes: [UInt8], to segment: Active, faultPrefix: String) throws(JournalError) {
        let path = journal.segmentPath(segment.name)
        let fd = try fs.openForAppending(path)
        defer { fs.close(fd) }
        do {
            try fs.writeAll(fd, bytes, path: path)
            FaultPoint.reach(faultPrefix + ".after-write")
            try fs.sync(fd, path: path)
            FaultPoint.reach(faultPrefix + ".after-sync")
        } catch {
            try? fs.truncate(fd, to: segment.fileSize, path: path)
            distrustActive = true
            active = nil
            throw error
        }
    }

    /// Rewrites a segment as sealed: its intact records (those before `cutAt`, where a later
    /// segment takes over) in large members at the seal level, then a seal member. The
    /// original is replaced atomically; if it was damaged, a copy goes to `damaged/` first.
    /// `trusted`: every member was written or checked by this appender, so large ones are
    /// copied without inflating them and records are not checked again.
    private func seal(_ name: SegmentName, cutAt: UInt64?, trusted: Bool = false) throws(JournalError) {
        let path = journal.segmentPath(name)
        // Read a member at a time and written a member at a time beside the original:
        // sealing costs a member's memory, whatever the segment's size.
        let file = try SegmentFile(journal, name, committed: false)
        let layout = try SegmentLayout(reading: file, name: name, journalID: journal.id)
        var damaged = layout.isDamaged
        let limit = cutAt ?? .max

        let output = try FileReplacement(path, in: fs)
        var memberBytes: [UInt8] = []
        var payload: [UInt8] = []
        var chunk: [UInt8] = []
        var chunkFirst: UInt64 = 0
        var chunkCount = 0
        var total = 0
        let writtenAt = UInt32(truncatingIfNeeded: max(Journal.currentTime(), 0))
        func flushChunk() throws(JournalError) {
            guard chunkCount > 0 else { return }
            try output.write(Member.encode(kind: .records, payload: chunk, firstSequence: chunkFirst, recordCount: chunkCount,
                                           journalID: journal.id, writtenAt: writtenAt, level: currentPolicy.sealLevel))
            total += chunkCount
            chunk.removeAll(keepingCapacity: true)
            chunkCount = 0
        }
        func keep(_ member: SegmentLayout.Located) throws(JournalError) {
            try flushChunk()
            try output.write(memberBytes)
            total += member.header.recordCount
        }
        for member in file.members(name: name, journalID: journal.id) {
            try file.readMember(member, into: &memberBytes)
            // A member that is already large (a bulk import commits 256 KiB at a time) is
            // kept as it is: recompressing it would cost a deflate pass for a few bytes.
            if trusted, member.header.endSequence <= limit,
               memberBytes.withUnsafeBytes({ Member.payloadSize($0) }) >= largeMemberBytes {
                try keep(member)
                continue
            }
            guard memberBytes.withUnsafeBytes({
                Member.decodePayload($0, header: member.header, checkLines: !trusted, into: &payload)
            }) == nil else {
                damaged = true
                continue
            }
            if payload.count >= largeMemberBytes, member.header.endSequence <= limit {
                try keep(member)
                continue
            }
            var sequence = member.header.firstSequence
            var lineStart = 0
            while lineStart < payload.count, sequence < limit {
                let lineEnd = payload[lineStart...].firstIndex(of: UInt8(ascii: "\n"))! + 1
                // A new member where the sequence jumps (a gap left by damage) or it is full.
                if chunkCount > 0 && (chunkFirst + UInt64(chunkCount) != sequence || chunk.count + (lineEnd - lineStart) > min(currentPolicy.sealedMemberBytes, Self.maxMemberPayload * 2)) {
                    try flushChunk()
                }
                if chunkCount == 0 { chunkFirst = sequence }
                chunk += payload[lineStart..<lineEnd]
                chunkCount += 1
                sequence += 1
                lineStart = lineEnd
            }
        }
        try flushChunk()
        try finishSeal(name, file: file, output: output, damaged: damaged, total: total, writtenAt: writtenAt)
    }

    /// The end of a seal: the original set aside first when it was damaged, then the seal
    /// member written and the replacement committed; with no record left, the segment removed.
    private func finishSeal(_ name: SegmentName, file: SegmentFile, output: FileReplacement, damaged: Bool, total: Int,
                            writtenAt: UInt32) throws(JournalError) {
        if damaged {
            let kept = try keepDamaged(file, 0..<file.count, as: name.fileName)
            onIssue?(JournalIssue(kind: .setAside, file: "segments/" + name.fileName, offset: 0, length: file.count,
                                  reason: "damaged/" + kept))
            // The time index holds the seconds of the records set aside: forgotten with
            // it, so that importing them again restores them (rebuilt by the next logger).
            try journal.forgetTimeIndex()
        }
        if total == 0 {
            output.discard()
            try fs.remove(journal.segmentPath(name))
            try fs.syncDirectory(journal.segmentsPath)
            return
        }
        try output.write(Member.encode(kind: .seal, payload: [], firstSequence: name.firstSequence, recordCount: total,
                                       journalID: journal.id, writtenAt: writtenAt, level: currentPolicy.sealLevel))
        try output.commit(faultPrefix: "seal")
    }
}

/// Seconds on the monotonic clock, for commit timing.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

extension JournalAppender {
    /// Seals every segment that has damage, keeping its intact records and a copy of the
    /// original in `damaged/` (`overland journal repair`). Returns how many were set aside.
    @discardableResult
    public func repairAll() throws(JournalError) -> Int {
        try commit()
        return try lockedRepair()
    }
}

/// The newest segment, walked a member at a time in file order (section 8): its valid
/// part ends at its last intact member. Without a seal, whatever follows is a torn tail (a
/// header that reached the disk with zeros where its data should be, a cut write); damage
/// before it, or anywhere in a sealed segment, has the segment set aside. A problem is known
/// to lie before the valid end once an intact member follows it.
struct TailScan {
    var payloadBytes = 0
    var intactRecords = 0
    var intactEnd = 0
    var intactEndSequence: UInt64?
    var createdAt: Int64?
    var smallMembers = 0
    var anyProblem = false
    var problemBeforeIntact = false
    /// The first problem after the last intact member so far: the torn tail's reason.
    var problemAfterIntact: String?
    /// Another journal's member is never a torn write: a segment holding one is set aside.
    var foreign = false
    var records = 0
    var lastEndSequence: UInt64?
    var endsWithSeal = false

    init(_ file: SegmentFile, _ name: SegmentName, journal: Journal, largeMemberBytes: Int) throws(JournalError) {
        var memberBytes: [UInt8] = []
        var payload: [UInt8] = []
        var walk = SegmentWalk(file, name: name, journalID: journal.id)
        while let step = walk.next() {
            switch step {
            case .damage(let damage), .tail(let damage):
                if damage.code == .foreignMember { foreign = true }
                problem(damage.reason)
            case .member(let member):
                records += member.header.recordCount
                lastEndSequence = member.header.endSequence
                if createdAt == nil { createdAt = Int64(member.header.writtenAt) }
                try file.readMember(member, into: &memberBytes)
                if let damage = memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header, into: &payload) }) {
                    problem(damage.reason)
                } else {
                    intact(member, payloadCount: payload.count, largeMemberBytes: largeMemberBytes)
                }
            }
        }
        if let error = file.readError { throw error }
        endsWithSeal = walk.endsWithSeal
    }

    private mutating func problem(_ reason: String) {
        anyProblem = true
        if problemAfterIntact == nil { problemAfterIntact = reason }
    }

    private mutating func intact(_ member: SegmentLayout.Located, payloadCount: Int, largeMemberBytes: Int) {
        payloadBytes += payloadCount
        if payloadCount < largeMemberBytes { smallMembers += 1 }
        if problemAfterIntact != nil { problemBeforeIntact = true }
        problemAfterIntact = nil
        intactRecords = records
        intactEnd = member.offset + member.header.memberSize
        intactEndSequence = member.header.endSequence
    }
}

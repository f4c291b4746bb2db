#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Copying one segment into a move's target: writing it durably, finding what an
/// interrupted run left there, reading it back.
extension Journal {
    func removeTemporarySegments() throws(JournalError) {
        for fileName in try fs.listDirectory(segmentsPath) where fileName.hasPrefix(".tmp-") {
            try fs.remove(segmentsPath + "/" + fileName)
        }
    }

    /// The target segment for one planned source segment, checked by producing it once
    /// (members are read, inflated and written a member at a time: see `MovedSegment`).
    func buildMovedSegment(_ segment: JournalMoveIntent.Segment, targetID: JournalID) throws(JournalError) -> MovedSegment {
        var built = MovedSegment(source: self, plan: segment, targetID: targetID)
        var bytes = 0
        built.records = try built.produce { (chunk: [UInt8]) throws(JournalError) in bytes += chunk.count }
        built.bytes = bytes
        return built
    }

    enum TargetState {
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
    func state(of segment: MovedSegment) throws(JournalError) -> TargetState {
        let path = segmentPath(segment.name)
        guard fs.kind(path) != .missing else { return .absent }
        let file = try SegmentFile(self, segment.name, committed: false)
        if try segment.isWritten(in: file) { return .complete }
        let layout = try SegmentLayout(reading: file, name: segment.name, journalID: id)
        var expected = try segment.expectedRecords()
        var pending = try expected.next()
        var matched = 0
        var intact = layout.seal != nil && !layout.isDamaged
        var memberBytes: [UInt8] = []
        var payload: [UInt8] = []
        for member in file.members(name: segment.name, journalID: id) {
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
    func writeMovedSegment(_ segment: MovedSegment) throws(MoveWriteError) {
        let temporary = segmentsPath + "/.tmp-" + segment.name.fileName
        do throws(JournalError) {
            try fs.remove(temporary)
            let fd = try fs.createExclusive(temporary)
            do {
                // Written a member at a time, as it is produced from the source.
                _ = try segment.produce { (chunk: [UInt8]) throws(JournalError) in try fs.writeAll(fd, chunk, path: temporary) }
                try fs.sync(fd, path: temporary)
            } catch {
                fs.close(fd)
                try? fs.remove(temporary)
                throw error
            }
            fs.close(fd)
        } catch {
            throw .beforeRename(error)
        }
        FaultPoint.reach("move.after-write")
        do throws(JournalError) {
            try fs.rename(temporary, segmentPath(segment.name))
            try fs.syncDirectory(segmentsPath)
        } catch {
            throw .afterRename(error)
        }
        FaultPoint.reach("move.after-copy")
    }

    /// Makes the names of the segments in this (target) journal durable: a segment a run
    /// after an interruption finds complete may have been renamed into place by a run whose
    /// directory fsync failed, or that was killed before it, so its name may be in the cache
    /// alone; the source gives the segment up only once it is durable (journal-sim seed
    /// 1130: a failed directory fsync on the stick, the move run again, a power cut took
    /// the moved segment back after the source file was deleted).
    func makeMovedSegmentsDurable() throws(JournalError) {
        try fs.syncDirectory(segmentsPath)
    }

    /// Reads a moved segment back from the medium (its cached pages dropped first) and
    /// checks that it is sealed, that every member inflates and that it holds exactly the
    /// records meant.
    func verifyMovedSegment(_ segment: MovedSegment) throws(JournalError) {
        let path = segmentPath(segment.name)
        let file = try SegmentFile(self, segment.name, committed: false)
        fs.dropCache(file.descriptor)
        guard try segment.isWritten(in: file) else {
            throw .io(operation: "cannot verify", path: path, reason: "the copy read back differs from what was written", code: EIO)
        }
        let layout = try SegmentLayout(reading: file, name: segment.name, journalID: id)
        guard layout.seal != nil, !layout.isDamaged, layout.recordCount == segment.records,
              try Self.firstDamagedMember(file, name: segment.name, journalID: id) == nil else {
            throw .io(operation: "cannot verify", path: path, reason: "the copy read back is not an intact sealed segment", code: EIO)
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

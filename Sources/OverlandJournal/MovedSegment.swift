#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Re-stamping a member for another journal.
extension Journal {
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
        let seal: MemberHeader
        /// The source's members, walked one at a time.
        private var walk: SegmentWalk<SegmentFile>
        private var memberBytes: [UInt8] = []
        /// The lines of the current member (newline-terminated).
        private(set) var payload: [UInt8] = []

        init(_ segment: MovedSegment) throws(JournalError) {
            self.segment = segment
            file = try SegmentFile(segment.source, segment.plan.name, committed: false)
            let layout = try SegmentLayout(reading: file, name: segment.plan.name, journalID: segment.source.id)
            guard let seal = layout.seal, !layout.isDamaged else {
                throw .untrusted(path: file.path, reason: "segment of a pending move is no longer sealed and intact")
            }
            self.seal = seal
            walk = SegmentWalk(file, name: segment.plan.name, journalID: segment.source.id)
        }

        /// The next member with records to move: its header, and the range of `payload` from
        /// the first moved line to the end of the last, with their source sequence numbers.
        func next() throws(JournalError) -> (member: SegmentLayout.Located, lines: Range<Int>, first: UInt64, count: Int)? {
            let plan = segment.plan
            while let step = walk.next() {
                guard let member = step.member else { continue }
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
            if let error = file.readError { throw error }
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

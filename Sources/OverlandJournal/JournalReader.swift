/// Streams records from a sequence number on, one member in memory at a time (segments
/// are read in pieces: `SegmentFile`), so memory stays bounded whatever a segment's size.
/// It reads the segment being written up to its last commit. Damage is skipped and reported: only
/// records from members whose checksums hold are ever returned.
public final class JournalReader {
    private let journal: Journal
    private let onIssue: JournalIssueHandler?
    private var names: [SegmentName]
    private var segmentIndex: Int
    private var from: UInt64

    // The segment being read.
    private var file: SegmentFile?
    private var memberBytes: [UInt8] = []
    /// Its members and damage, walked one at a time (nil once walked to the end).
    private var walk: SegmentWalk<SegmentFile>?
    private var limit: UInt64 = .max
    /// Damage found but not yet reported (in file order: only what lies after the last
    /// intact member), and whether it waits for an intact member after it.
    private var pending: [SegmentLayout.Damage] = []
    private var deferDamage = false

    // The member being read.
    private var payload: [UInt8] = []
    private var lineStart = 0
    private var sequence: UInt64 = 0

    init(journal: Journal, from: UInt64, onIssue: JournalIssueHandler?) throws(JournalError) {
        self.journal = journal
        self.onIssue = onIssue
        self.from = from
        names = try journal.segments(onIssue: onIssue)
        // The last segment starting at or before `from` holds it, if any does.
        var low = 0
        var high = names.count
        while low < high {
            let middle = (low + high) / 2
            if names[middle].firstSequence <= from { low = middle + 1 } else { high = middle }
        }
        segmentIndex = max(low - 1, 0)
    }

    /// The next record, or nil at the end of what is committed now.
    public func next() throws(JournalError) -> JournalRecord? {
        while true {
            if lineStart < payload.count {
                let end = payload.withUnsafeBytes { newline(in: $0, from: lineStart) }!
                let record = JournalRecord(sequence: sequence, line: payload[lineStart..<end])
                lineStart = end + 1
                sequence += 1
                // Past the next segment's name, or past the last number a record may have.
                if record.sequence >= limit || record.sequence >= SequenceNumber.limit {
                    lineStart = payload.count
                    continue
                }
                if record.sequence < from { continue }
                return record
            }
            if walk != nil {
                try walkOn()
                continue
            }
            finishSegment()
            guard segmentIndex < names.count else { return nil }
            try openSegment()
        }
    }

    private func openSegment() throws(JournalError) {
        let name = names[segmentIndex]
        let isLast = segmentIndex == names.count - 1
        limit = isLast ? .max : names[segmentIndex + 1].firstSequence
        segmentIndex += 1
        // Emptied, not released: the next member reuses the storage (and the next segment
        // that of `bytes`) when no record handed out still holds it.
        payload.removeAll(keepingCapacity: true)
        lineStart = 0
        file = nil
        let opened: SegmentFile
        do {
            opened = try SegmentFile(journal, name, committed: isLast)
        } catch {
            // A segment deleted by retention since the listing held only sent records.
            if case .io(_, _, _, let code) = error, code == 2 /* ENOENT */ { walk = nil; pending = []; return }
            throw error
        }
        // The newest segment without a seal ends at its last intact member; what follows is
        // its torn tail (a write in progress, or what the next appender cuts), not damage.
        // Damage there is only known to be damage once an intact member follows it. Only
        // the newest segment is walked twice for that (its summary first).
        deferDamage = false
        if isLast { deferDamage = try !SegmentLayout(reading: opened, name: name, journalID: journal.id).endsWithSeal }
        file = opened
        walk = SegmentWalk(opened, name: name, journalID: journal.id)
        pending = []
    }

    /// One step of the segment's walk: a member read (records before `from` are not
    /// inflated), or damage noted; at the end of the walk, a read that failed is thrown.
    private func walkOn() throws(JournalError) {
        guard let step = walk?.next() else {
            walk = nil
            if let error = file?.readError { throw error }
            return
        }
        switch step {
        case .damage(let damage), .tail(let damage):
            if let error = file?.readError { throw error }
            pending.append(damage)
            if !deferDamage { flushPending(before: .max) }
        case .member(let member):
            if member.header.endSequence > from { try openMember(member) }
        }
    }

    private func openMember(_ member: SegmentLayout.Located) throws(JournalError) {
        try file?.readMember(member, into: &memberBytes)
        let damage = memberBytes.withUnsafeBytes {
            Member.decodePayload($0, header: member.header, into: &payload)
        }
        lineStart = 0
        if let damage {
            payload.removeAll(keepingCapacity: true)
            pending.append(SegmentLayout.Damage(offset: member.offset, length: member.header.memberSize, reason: damage.reason, code: damage.code))
            if !deferDamage { flushPending(before: .max) }
        } else {
            sequence = member.header.firstSequence
            flushPending(before: member.offset)
        }
    }

    /// At the end of a segment, what is still pending lies after its last intact member: the
    /// newest segment's torn tail, not reported, unless it holds another journal's member
    /// (never a torn write: damage).
    private func finishSegment() {
        if pending.contains(where: { $0.code == .foreignMember }) { flushPending(before: .max) }
        pending.removeAll()
    }

    /// Reports the pending damage that lies before `offset`.
    private func flushPending(before offset: Int) {
        let file = "segments/" + names[segmentIndex - 1].fileName
        while let first = pending.first, first.offset < offset {
            report(file, pending.removeFirst())
        }
    }

    private func report(_ file: String, _ damage: SegmentLayout.Damage) {
        onIssue?(JournalIssue(kind: .damage, file: file, offset: damage.offset, length: damage.length, reason: damage.reason,
                              code: damage.code))
    }
}

/// The plan of a move: which segments, which records, which numbers in the target.
extension Journal {
    /// Segments planned by one intent at most (the intent stays a small state file).
    static let maxSegmentsPerIntent = 256

    struct MovePlan {
        var intent: JournalMoveIntent
        var truncated = false
        var stoppedAt: String?
    }

    /// The longest run of unsent segments, oldest first, that are sealed and intact: the
    /// cursor can only pass records in order, so the first segment that cannot move ends it.
    func planMove(into target: Journal) throws(JournalError) -> MovePlan {
        try requireReadableCursors()
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
            if let damage = try Self.firstDamagedMember(file, name: name, journalID: id) {
                plan.stoppedAt = "segment \(name) is damaged at offset \(damage): run 'overland journal repair', then move again"
                break
            }
            let from = max(cursor, name.firstSequence)
            let end = min(layout.endSequence ?? name.firstSequence, limit)
            guard end > from else { continue }
            var records = 0
            for member in file.members(name: name, journalID: id) {
                let first = max(member.header.firstSequence, from)
                let last = min(member.header.endSequence, end)
                if last > first { records += Int(last - first) }
            }
            if let error = file.readError { throw error }
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

    static func firstDamagedMember(_ file: SegmentFile, name: SegmentName, journalID: JournalID) throws(JournalError) -> Int? {
        var memberBytes: [UInt8] = []
        var payload: [UInt8] = []
        for member in file.members(name: name, journalID: journalID) {
            try file.readMember(member, into: &memberBytes)
            if memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header, into: &payload) }) != nil {
                return member.offset
            }
        }
        return nil
    }
}

/// Counts and checks over a whole journal, for `overland journal stats` and `verify`.
extension Journal {
    /// Sizes and counts, from member headers (nothing is inflated).
    public struct Statistics: Sendable, Equatable {
        public var segments = 0
        public var sealedSegments = 0
        /// Records present (damaged members excluded only where their headers are).
        public var records: UInt64 = 0
        /// Records below the cursor: acknowledged by the server.
        public var sentRecords: UInt64 = 0
        public var sealedRecords: UInt64 = 0
        public var sealedBytes = 0
        public var activeRecords: UInt64 = 0
        public var activeBytes = 0
        public var cursor: UInt64 = 0
        /// One past the newest record.
        public var endSequence: UInt64 = 0

        public var unsentRecords: UInt64 { records - sentRecords }
        public var bytes: Int { sealedBytes + activeBytes }
    }

    /// Counts records and bytes by walking every segment's member headers.
    public func statistics() throws(JournalError) -> Statistics {
        var result = Statistics()
        result.cursor = try cursor()
        let names = try segments()
        for (index, name) in names.enumerated() {
            let limit = index + 1 < names.count ? names[index + 1].firstSequence : .max
            let file = try SegmentFile(self, name, committed: index + 1 == names.count)
            let layout = try SegmentLayout(reading: file, name: name, journalID: id)
            var records: UInt64 = 0
            for member in layout.members {
                let first = member.header.firstSequence
                let end = min(member.header.endSequence, limit)
                guard end > first else { continue }
                records += end - first
                if first < result.cursor { result.sentRecords += min(end, result.cursor) - first }
                result.endSequence = max(result.endSequence, end)
            }
            result.segments += 1
            result.records += records
            if layout.seal != nil {
                result.sealedSegments += 1
                result.sealedRecords += records
                result.sealedBytes += file.count
            } else {
                result.activeRecords += records
                result.activeBytes += file.count
            }
        }
        if names.isEmpty { result.endSequence = result.cursor }
        return result
    }

    /// What `verify` found.
    public struct Verification: Sendable, Equatable {
        public var segments = 0
        public var intactRecords: UInt64 = 0
        /// Damaged ranges (each also reported through the issue handler).
        public var damage = 0
        /// An unfinished write at the end of the newest, unsealed segment: what a crash
        /// leaves, cut by the next appender. Not damage.
        public var unfinishedTail = false
    }

    /// Inflates and checks every member of every segment (journal-format.md section 5),
    /// reporting each damaged range.
    public func verify(onIssue: JournalIssueHandler? = nil) throws(JournalError) -> Verification {
        var result = Verification()
        let names = try segments(onIssue: onIssue)
        for (index, name) in names.enumerated() {
            let isLast = index == names.count - 1
            let segment = try SegmentFile(self, name, committed: isLast)
            let layout = try SegmentLayout(reading: segment, name: name, journalID: id)
            var memberBytes: [UInt8] = []
            let file = "segments/" + name.fileName
            func report(_ damage: SegmentLayout.Damage) {
                result.damage += 1
                onIssue?(JournalIssue(kind: .damage, file: file, offset: damage.offset, length: damage.length, reason: damage.reason))
            }
            result.segments += 1
            layout.damage.forEach(report)
            if let tail = layout.tail {
                if isLast && layout.seal == nil && (tail.reason == MemberDamage.truncated.reason || tail.reason == MemberDamage.zeroFilled.reason) {
                    result.unfinishedTail = true
                } else {
                    report(tail)
                }
            }
            for member in layout.members {
                try segment.readMember(member, into: &memberBytes)
                switch memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header) }) {
                case .success: result.intactRecords += UInt64(member.header.recordCount)
                case .failure(let damage): report(.init(offset: member.offset, length: member.header.memberSize, reason: damage.reason))
                }
            }
        }
        return result
    }
}

extension Journal {
    /// Bytes on disk and the span of sequence numbers the segments cover, from file sizes
    /// alone: what `overland status` shows, at the same cost whatever the backlog.
    public struct Footprint: Sendable, Equatable {
        public var segments = 0
        public var bytes = 0
        /// Sequence number of the oldest record kept.
        public var firstSequence: UInt64 = 0
    }

    /// Sizes of the segment files, by stat.
    public func footprint() throws(JournalError) -> Footprint {
        var result = Footprint()
        let names = try segments()
        result.segments = names.count
        result.firstSequence = names.first?.firstSequence ?? 0
        for name in names {
            if let size = FileSystem.fileSize(segmentPath(name)) { result.bytes += size }
        }
        return result
    }
}

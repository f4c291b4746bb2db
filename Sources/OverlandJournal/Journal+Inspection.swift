#if canImport(Glibc)
import Glibc
#endif

/// Counts and checks over a whole journal, for `overland journal stats` and `verify`.
extension Journal {
    /// Sizes and counts, from member headers (nothing is inflated).
    public struct Statistics: Sendable, Equatable {
        public var segments = 0
        public var sealedSegments = 0
        /// Records present (damaged members excluded only where their headers are).
        public var records: UInt64 = 0
        /// Records acknowledged by every reader (or passed over: see `passedAtStart`): below
        /// the floor, or below the lowest place of the readers `statistics(readers:)` named.
        public var sentRecords: UInt64 = 0
        /// Records below the cursor that some reader passed over when it began (below its
        /// `start`): not sent to every reader.
        public var passedAtStart: UInt64 = 0
        public var sealedRecords: UInt64 = 0
        public var sealedBytes = 0
        public var activeRecords: UInt64 = 0
        public var activeBytes = 0
        /// The floor (`cursor.json`): `sentRecords` counts the records below it.
        public var cursor: UInt64 = 0
        /// One past the newest record.
        public var endSequence: UInt64 = 0
        /// Each named cursor (journal-format.md section 9), by name: empty with one reader.
        public var readers: [Reader] = []

        /// A reader's cursor and the records present below it (nil: its cursor file is refused).
        public struct Reader: Sendable, Equatable {
            public var name: CursorName
            public var cursor: UInt64?
            /// Records present below the cursor, passed: sent, or passed over.
            public var sentRecords: UInt64 = 0
            /// Where the reader started (nil: at the journal's start).
            public var start: UInt64?
            /// Records present below both `start` and the cursor: passed over when the
            /// reader began, never sent to it (counted in `sentRecords`).
            public var passedAtStart: UInt64 = 0
        }

        public var unsentRecords: UInt64 { records - sentRecords }
        public var bytes: Int { sealedBytes + activeBytes }
    }

    /// Counts records and bytes by walking every segment's member headers. `readers`: the
    /// readers there are (every configured destination): a record is sent once every one
    /// of them has had it acknowledged (`unsentFrom(readers:)`); nil: the journal's cursor
    /// files and the floor. `starts`: where named readers began, for `Reader.passedAtStart`.
    public func statistics(readers configured: [CursorName]? = nil, starts: [CursorName: UInt64] = [:]) throws(JournalError) -> Statistics {
        var result = Statistics()
        result.cursor = try cursor()
        var sentBelow = result.cursor
        if let configured { sentBelow = try unsentFrom(readers: configured) }
        var readerNames = configured ?? []
        if configured == nil { readerNames = try cursorNames() }
        for name in readerNames {
            if case .valid(let next) = try readCursor(for: name) {
                result.readers.append(Statistics.Reader(name: name, cursor: next, start: starts[name]))
            } else {
                result.readers.append(Statistics.Reader(name: name, cursor: nil))
            }
        }
        let latestStart = starts.values.max() ?? 0
        let names = try segments()
        for (index, name) in names.enumerated() {
            let limit = index + 1 < names.count ? names[index + 1].firstSequence : .max
            let file = try SegmentFile(self, name, committed: index + 1 == names.count)
            var walk = SegmentWalk(file, name: name, journalID: id)
            var records: UInt64 = 0
            while let step = walk.next() {
                guard let member = step.member else { continue }
                let first = member.header.firstSequence
                let end = min(member.header.endSequence, limit)
                guard end > first else { continue }
                records += end - first
                if first < sentBelow { result.sentRecords += min(end, sentBelow) - first }
                let passedByAll = min(sentBelow, latestStart)
                if first < passedByAll { result.passedAtStart += min(end, passedByAll) - first }
                for index in result.readers.indices {
                    guard let next = result.readers[index].cursor else { continue }
                    if first < next { result.readers[index].sentRecords += min(end, next) - first }
                    let passed = min(next, result.readers[index].start ?? 0)
                    if first < passed { result.readers[index].passedAtStart += min(end, passed) - first }
                }
                result.endSequence = max(result.endSequence, end)
            }
            if let error = file.readError { throw error }
            result.segments += 1
            result.records += records
            if walk.seal != nil {
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
        /// A damaged byte range of a segment, or the newest segment's torn tail.
        public struct Range: Sendable, Equatable {
            /// Relative to the journal directory: `segments/NAME`.
            public var file: String
            public var offset: Int
            public var length: Int
            public var code: DamageCode
            public var reason: String
        }

        public var segments = 0
        /// Records a reader passes on: those of intact members, below the next segment's name.
        public var intactRecords: UInt64 = 0
        /// Damaged ranges, file by file, by offset (each also reported through the issue handler).
        public var damaged: [Range] = []
        public var damage: Int { damaged.count }
        /// The torn tail of the newest segment when it has no seal: what a crash (or a write
        /// in progress) leaves, cut by the next appender. Not damage.
        public var tail: Range?
        public var unfinishedTail: Bool { tail != nil }
        /// The sequence numbers of the intact records, as ascending disjoint runs.
        public var runs: [Swift.Range<UInt64>] = []

        /// Intact records at or after `next`: what a sync from that cursor would send.
        public func unsent(from next: UInt64) -> UInt64 {
            runs.reduce(0) { $0 + ($1.upperBound > next ? $1.upperBound - max($1.lowerBound, next) : 0) }
        }
    }

    /// Inflates and checks every member of every segment (journal-format.md sections 5
    /// and 8), reporting each damaged range. Reads only.
    public func verify(onIssue: JournalIssueHandler? = nil) throws(JournalError) -> Verification {
        var result = Verification()
        let names = try segments(onIssue: onIssue)
        for (index, name) in names.enumerated() {
            let isLast = index == names.count - 1
            let limit = isLast ? UInt64.max : names[index + 1].firstSequence
            let segment: SegmentFile
            do {
                segment = try SegmentFile(self, name, committed: isLast)
            } catch {
                // Deleted by retention since the listing: it held only sent records.
                if case .io(_, _, _, let code) = error, code == ENOENT { continue }
                throw error
            }
            var memberBytes: [UInt8] = []
            let file = "segments/" + name.fileName
            result.segments += 1
            // Walked in file order: damage is reported as soon as an intact member follows
            // it; what follows the last intact member waits for the end of the walk.
            var pending: [SegmentLayout.Damage] = []
            var intactEnd = 0
            func report(_ damage: SegmentLayout.Damage) throws(JournalError) {
                // A read that failed is thrown, not taken for damage.
                if let error = segment.readError { throw error }
                result.damaged.append(.init(file: file, offset: damage.offset, length: damage.length, code: damage.code, reason: damage.reason))
                onIssue?(JournalIssue(kind: .damage, file: file, offset: damage.offset, length: damage.length, reason: damage.reason,
                                      code: damage.code))
            }
            var walk = SegmentWalk(segment, name: name, journalID: id)
            while let step = walk.next() {
                switch step {
                case .damage(let damage), .tail(let damage):
                    pending.append(damage)
                case .member(let member):
                    try segment.readMember(member, into: &memberBytes)
                    switch memberBytes.withUnsafeBytes({ Member.decodePayload($0, header: member.header) }) {
                    case .success:
                        intactEnd = member.offset + member.header.memberSize
                        for damage in pending { try report(damage) }
                        pending.removeAll()
                        let first = member.header.firstSequence
                        guard first < limit else { continue }
                        let end = min(member.header.endSequence, limit)
                        result.intactRecords += end - first
                        if let last = result.runs.last, last.upperBound == first {
                            result.runs[result.runs.count - 1] = last.lowerBound..<end
                        } else {
                            result.runs.append(first..<end)
                        }
                    case .failure(let damage):
                        pending.append(.init(offset: member.offset, length: member.header.memberSize, reason: damage.reason, code: damage.code))
                    }
                }
            }
            if let error = segment.readError { throw error }
            // The newest segment without a seal ends at its last intact member: what follows
            // is its torn tail, whatever it holds, unless it holds another journal's member
            // (no crash writes that: segment files copied in by hand are damage).
            if isLast && !walk.endsWithSeal && intactEnd < segment.count
                && !pending.contains(where: { $0.code == .foreignMember }) {
                pending.removeAll()
                result.tail = .init(file: file, offset: intactEnd, length: segment.count - intactEnd,
                                    code: SegmentLayout.isZero(segment, intactEnd..<segment.count) ? .zeroFilled : .truncated,
                                    reason: "unfinished write")
            }
            for damage in pending { try report(damage) }
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

        /// Nothing: no segments.
        public init() {}
    }

    /// Sizes of the segment files, by stat.
    public func footprint() throws(JournalError) -> Footprint {
        var result = Footprint()
        let names = try segments()
        result.segments = names.count
        result.firstSequence = names.first?.firstSequence ?? 0
        for name in names {
            if let size = fs.fileSize(segmentPath(name)) { result.bytes += size }
        }
        return result
    }
}

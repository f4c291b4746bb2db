/// A set of journal records as sorted, disjoint ranges of sequence numbers: a
/// destination's refused records (`SyncState.refused`: what the sync's passes refused and
/// the last audit found not held), what an audit compared. At most `limit` ranges (beyond,
/// the two nearest become one, the records between counted too: a count is then an upper
/// bound, as journal-format.md's state section says).
public struct RecordSet: Sendable, Equatable {
    public private(set) var ranges: [Range<UInt64>] = []
    /// The most ranges the set keeps.
    public let limit: Int
    /// The most ranges a state file keeps.
    public static let maximumRanges = 512

    public init(limit: Int = RecordSet.maximumRanges) {
        self.limit = max(2, limit)
    }

    /// `ranges` as read from a state file: sorted, overlaps merged, bounded.
    public init(ranges: [Range<UInt64>], limit: Int = RecordSet.maximumRanges) {
        self.limit = max(2, limit)
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty { append(range) }
        bound()
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// The records in the set, from `first` on (the journal's first record: what retention
    /// deleted no longer counts).
    public func count(from first: UInt64 = 0) -> UInt64 {
        ranges.reduce(0) { total, range in
            total + (range.upperBound > first ? range.upperBound - max(range.lowerBound, first) : 0)
        }
    }

    /// Adds the record `sequence`.
    public mutating func insert(_ sequence: UInt64) {
        insert(sequence..<sequence + 1)
    }

    /// Adds the records `range`.
    public mutating func insert(_ range: Range<UInt64>) {
        guard !range.isEmpty else { return }
        // Records come in journal order: extending or appending at the end needs no rebuild.
        if ranges.last.map({ range.lowerBound >= $0.lowerBound }) ?? true {
            append(range)
            bound()
            return
        }
        var merged = range
        var kept: [Range<UInt64>] = []
        kept.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound < merged.lowerBound || existing.lowerBound > merged.upperBound {
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)..<max(existing.upperBound, merged.upperBound)
            }
        }
        let index = kept.firstIndex { $0.lowerBound > merged.lowerBound } ?? kept.endIndex
        kept.insert(merged, at: index)
        ranges = kept
        bound()
    }

    /// Takes the records `range` out (read again: what is still missing is added back).
    public mutating func remove(_ range: Range<UInt64>) {
        guard !range.isEmpty else { return }
        var kept: [Range<UInt64>] = []
        for existing in ranges {
            if existing.lowerBound < range.lowerBound { kept.append(existing.lowerBound..<min(existing.upperBound, range.lowerBound)) }
            if existing.upperBound > range.upperBound { kept.append(max(existing.lowerBound, range.upperBound)..<existing.upperBound) }
        }
        ranges = kept.filter { !$0.isEmpty }
    }

    /// Appends `range`, which starts at or after the last range's start.
    private mutating func append(_ range: Range<UInt64>) {
        if let last = ranges.last, range.lowerBound <= last.upperBound {
            ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
        } else {
            ranges.append(range)
        }
    }

    /// At most `limit` ranges: the two with the smallest gap become one.
    private mutating func bound() {
        while ranges.count > limit {
            var nearest = 0
            for index in 1..<(ranges.count - 1) where
                ranges[index + 1].lowerBound - ranges[index].upperBound < ranges[nearest + 1].lowerBound - ranges[nearest].upperBound {
                nearest = index
            }
            ranges[nearest] = ranges[nearest].lowerBound..<ranges[nearest + 1].upperBound
            ranges.remove(at: nearest + 1)
        }
    }
}

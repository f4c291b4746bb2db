/// A segment's file name: the sequence number of its first record as 20 decimal digits,
/// then `.jsonl.gz` (`00000000000000001234.jsonl.gz`). Nothing else in `segments/` is a
/// segment: names are validated strictly, since a journal may come from an untrusted stick.
public struct SegmentName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Sequence number of the segment's first record.
    public let firstSequence: UInt64

    static let suffix = ".jsonl.gz"
    static let digits = 20
    /// The largest first sequence number a name may carry: 2^53, past which a cursor (a JSON
    /// number) cannot count. A larger name on an untrusted stick would make an appender
    /// number records past what members and cursors hold (or overflow); it is no segment.
    static let maxFirstSequence: UInt64 = SequenceNumber.limit

    /// The name for a segment whose first record has this sequence number.
    public init(firstSequence: UInt64) {
        self.firstSequence = firstSequence
    }

    /// Parses a file name; nil unless it is exactly 20 digits and `.jsonl.gz`, at most
    /// `maxFirstSequence`.
    public init?(fileName: String) {
        let bytes = Array(fileName.utf8)
        guard bytes.count == Self.digits + Self.suffix.utf8.count,
              bytes[Self.digits...].elementsEqual(Self.suffix.utf8) else { return nil }
        var value: UInt64 = 0
        for byte in bytes[..<Self.digits] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowSum else { return nil }
            value = sum
        }
        guard value <= Self.maxFirstSequence else { return nil }
        firstSequence = value
    }

    /// The file name.
    public var fileName: String {
        let number = String(firstSequence)
        return String(repeating: "0", count: Self.digits - number.count) + number + Self.suffix
    }

    public var description: String { fileName }

    public static func < (lhs: SegmentName, rhs: SegmentName) -> Bool { lhs.firstSequence < rhs.firstSequence }
}

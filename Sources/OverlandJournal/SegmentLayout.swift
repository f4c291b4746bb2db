#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a whole walk of a segment's member headers (`SegmentWalk`) sums up to: whether it
/// is sealed, whether it has damage, its last sequence number and record count. It keeps
/// no list of members or damaged ranges: its size is the same whatever the segment holds.
struct SegmentLayout: Sendable {
    struct Located: Sendable {
        var header: MemberHeader
        var offset: Int
    }

    /// A byte range that holds no valid member.
    struct Damage: Sendable, Equatable {
        var offset: Int
        var length: Int
        var reason: String
        var code: DamageCode
    }

    /// The seal member, when the segment is sealed.
    var seal: MemberHeader?
    /// True when the last member is this segment's valid seal (rule 6 of section 5), even
    /// if the segment has damage elsewhere (then `seal` is nil).
    var endsWithSeal = false
    /// Damaged ranges before the last valid member.
    var damageCount = 0
    /// Invalid bytes at the end with no valid member after them: a torn or in-progress
    /// write in an active segment, damage in a sealed one.
    var tail: Damage?
    /// Where the valid part ends (the end of the last valid member).
    var validEnd = 0
    /// Sequence number after the last valid record.
    var endSequence: UInt64?
    /// Records in the valid record members.
    var recordCount = 0

    var isDamaged: Bool { damageCount > 0 || tail != nil }

    /// Walks `bytes`, a whole segment file of the journal `journalID` named `name` (in
    /// memory, or a `SegmentFile` read in pieces; journal-format.md section 8: framing,
    /// without inflating).
    init<Bytes: SegmentBytes>(walking bytes: Bytes, name: SegmentName, journalID: JournalID) {
        var walk = SegmentWalk(bytes, name: name, journalID: journalID)
        while let step = walk.next() {
            switch step {
            case .member(let member): endSequence = member.header.endSequence
            case .damage: damageCount += 1
            case .tail(let range): tail = range
            }
        }
        recordCount = walk.recordCount
        validEnd = walk.validEnd
        endsWithSeal = walk.endsWithSeal
        seal = walk.seal
    }

    /// Bytes scanned at a time when looking for the next header or checking for zeros.
    static let scanChunk = 64 << 10

    private static let zeros = [UInt8](repeating: 0, count: scanChunk)

    /// Whether every byte of `range` is zero; checked a chunk at a time.
    static func isZero<Bytes: SegmentBytes>(_ bytes: Bytes, _ range: Range<Int>) -> Bool {
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(range.upperBound, start + scanChunk)
            let zero = bytes.withBytes(start..<end) { chunk in
                chunk.isEmpty || zeros.withUnsafeBytes { memcmp(chunk.baseAddress!, $0.baseAddress!, chunk.count) == 0 }
            }
            guard zero else { return false }
            start = end
        }
        return true
    }
}

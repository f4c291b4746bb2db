#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The structure of one segment file, found by walking its member headers without
/// inflating them: where each member is, where damage is, whether it is sealed.
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

    /// Valid record members, in file order, sequence numbers increasing.
    var members: [Located] = []
    /// The seal member, when the segment is sealed.
    var seal: MemberHeader?
    /// True when the last member is this segment's valid seal (rule 6 of section 5), even
    /// if the segment has damage elsewhere (then `seal` is nil).
    var endsWithSeal = false
    /// Damaged ranges before the last valid member.
    var damage: [Damage] = []
    /// Invalid bytes at the end with no valid member after them: a torn or in-progress
    /// write in an active segment, damage in a sealed one.
    var tail: Damage?
    /// Where the valid part ends (the end of the last valid member).
    var validEnd = 0

    /// Sequence number after the last valid record.
    var endSequence: UInt64? { members.last?.header.endSequence }

    var recordCount: Int { members.reduce(0) { $0 + $1.header.recordCount } }

    var isDamaged: Bool { !damage.isEmpty || tail != nil }

    /// Walks `bytes`, a whole segment file of the journal `journalID` named `name` (in
    /// memory, or a `SegmentFile` read in pieces; journal-format.md section 8: framing,
    /// without inflating).
    init<Bytes: SegmentBytes>(walking bytes: Bytes, name: SegmentName, journalID: JournalID) {
        var offset = 0
        var nextAllowed = name.firstSequence
        let count = bytes.count
        while offset < count {
            let problem: MemberDamage
            switch bytes.withBytes(offset..<min(count, offset + Member.headerSize), { Member.parseHeader($0) }) {
            case .success(let header):
                if offset + header.memberSize > count {
                    problem = .truncated
                } else if header.journalID != journalID {
                    problem = .corrupt("member of another journal (\(header.journalID))", .foreignMember)
                } else if header.kind == .seal {
                    // A seal is framed like any member: when it is not this segment's exact
                    // seal as its last member, its own bytes are damage and the walk goes on.
                    if let reason = Self.sealProblem(header, at: offset, in: bytes, name: name, recordCount: recordCount) {
                        damage.append(Damage(offset: offset, length: header.memberSize, reason: reason, code: .badSeal))
                        seal = nil
                    } else {
                        seal = header
                        validEnd = offset + header.memberSize
                    }
                    offset += header.memberSize
                    continue
                } else if header.firstSequence < nextAllowed {
                    problem = .corrupt("member out of sequence (\(header.firstSequence) before \(nextAllowed))", .outOfSequence)
                } else {
                    members.append(Located(header: header, offset: offset))
                    nextAllowed = header.endSequence
                    offset += header.memberSize
                    validEnd = offset
                    continue
                }
            case .failure(let damage):
                problem = damage
            }
            // Resynchronise at the next offset after this one where a valid header of this
            // journal starts, whose member lies inside the file.
            let resume = Self.nextHeader(in: bytes, after: offset, journalID: journalID)
            let end = resume ?? count
            var reason = problem.reason
            var code = problem.code
            if Self.isZero(bytes, offset..<end) {
                reason = MemberDamage.zeroFilled.reason
                code = .zeroFilled
            }
            let range = Damage(offset: offset, length: end - offset, reason: reason, code: code)
            if resume == nil { tail = range } else { damage.append(range) }
            offset = end
        }
        endsWithSeal = seal != nil
        if seal != nil, !damage.isEmpty || tail != nil {
            // A seal is only as good as the members it counts.
            seal = nil
        }
    }

    /// Why a framed seal member at `offset` is not this segment's seal, or nil when it is:
    /// exactly 64 bytes (empty deflate data, CRC 0, ISIZE 0), the segment's first sequence
    /// number, the count of the records members framed before it, the file's last member.
    private static func sealProblem(_ header: MemberHeader, at offset: Int, in bytes: some SegmentBytes,
                                    name: SegmentName, recordCount: Int) -> String? {
        let sealSize = Member.headerSize + Member.emptyDeflate.count + Member.trailerSize
        guard header.memberSize == sealSize,
              bytes.withBytes((offset + Member.headerSize)..<(offset + sealSize), {
                  $0.elementsEqual(Member.emptyDeflate + [0, 0, 0, 0, 0, 0, 0, 0])
              })
        else { return "seal member is not the 64-byte empty seal" }
        guard header.firstSequence == name.firstSequence, header.recordCount == recordCount else {
            return "seal claims \(header.recordCount) records from \(header.firstSequence)"
        }
        guard offset + sealSize == bytes.count else { return "data after the seal" }
        return nil
    }

    /// Bytes scanned at a time when looking for the next header or checking for zeros.
    private static let scanChunk = 64 << 10

    /// The next offset after `start` where a valid header of this journal starts whose
    /// member lies inside the file; scanned a chunk at a time.
    private static func nextHeader<Bytes: SegmentBytes>(in bytes: Bytes, after start: Int, journalID: JournalID) -> Int? {
        let count = bytes.count
        var chunkStart = start + 1
        while chunkStart + Member.headerSize <= count {
            let chunkEnd = min(count - Member.headerSize + 1, chunkStart + scanChunk)
            // Candidates first (the magic), then each header read on its own: no nested reads.
            let candidates: [Int] = bytes.withBytes(chunkStart..<(chunkEnd + 3)) { chunk in
                var found: [Int] = []
                guard let base = chunk.baseAddress else { return found }
                var index = 0
                let scanned = min(chunkEnd - chunkStart, chunk.count)
                while index < scanned, let hit = memchr(base + index, 0x1f, scanned - index) {
                    index = base.distance(to: UnsafeRawPointer(hit))
                    if index + 3 < chunk.count, chunk[index + 1] == 0x8b, chunk[index + 2] == 0x08, chunk[index + 3] == 0x06 {
                        found.append(chunkStart + index)
                    }
                    index += 1
                }
                return found
            }
            for index in candidates {
                if case .success(let header) = bytes.withBytes(index..<(index + Member.headerSize), { Member.parseHeader($0) }),
                   header.journalID == journalID, index + header.memberSize <= count {
                    return index
                }
            }
            chunkStart = chunkEnd
        }
        return nil
    }

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
